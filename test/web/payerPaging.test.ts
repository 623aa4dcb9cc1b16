import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/Store.js';
import { toText } from '../../src/core/html.js';
import { PayerBook, type PayerLine, type PayerView } from '../../src/web/payerBook.js';
import { PAGE_SIZE, payersFragment, payersPage, viewQuery } from '../../src/web/payerPages.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

// The pages are queries of the store (the postgres project runs this file on PostgreSQL too).

const line = (i: number, category: PayerLine['category'] = i % 3 === 0 ? 'payable' : 'kyc-pending'): PayerLine => ({
  clientUserId: `P-${String(i).padStart(5, '0')}`,
  userId: `u-${i}`,
  category,
  kycStatus: category === 'payable' ? 'approved' : 'pending',
  agreementStatus: 'completed',
  bank: '',
  kycUrl: `https://kyc.example/${i}`,
  agreementUrl: '',
  since: '2026-12-01T10:00:00.000Z',
  checkedAt: '',
  error: '',
});
const lines = Array.from({ length: 50_000 }, (_, i) => line(i + 1));
const SERVICE = 'api.example.com-0123456789ab';

let tmp: ReturnType<typeof tempDir>;
let test: TestStore;
let store: Store;
let book: PayerBook;
beforeAll(async () => {
  tmp = tempDir();
  test = await testStore(tmp.dir);
  store = await openStore({ stateDir: tmp.dir, databaseUrl: test.env.PAYER_ONBOARD_DATABASE_URL });
  const service = SERVICE;
  const stored = lines.map((l) => ({
    clientUserId: l.clientUserId,
    category: l.category,
    line: JSON.stringify(l),
    seen: '{}',
  }));
  for (let i = 0; i < stored.length; i += 5000) await store.payers(service).put(stored.slice(i, i + 5000), []);
  // Every payer has a directory entry, long names and addresses the page shows: the heaviest page there is.
  const entries = lines.map((l, i) => ({
    clientUserId: l.clientUserId,
    firstName: i === 41 ? 'Émile' : 'Bartholomew-Alexander',
    lastName: i === 41 ? 'Zola' : `Featherstonehaugh-${i}`,
    email: `${i === 41 ? 'emile.zola' : `bartholomew.featherstonehaugh.${i}`}@accounts-payable.example.com`,
    ...(i % 7 === 0 ? { companyName: `Featherstonehaugh & Sons Holdings ${i} Ltd` } : {}),
    updatedAt: '2026-12-01T10:00:00.000Z',
  }));
  for (let i = 0; i < entries.length; i += 5000) await store.directory(service).putEntries(entries.slice(i, i + 5000));
  book = new PayerBook(tmp.path('results'), { stateDir: tmp.dir, service, jsonl: [], open: store });
});
afterAll(async () => {
  await store.close();
  await test.close();
  tmp.remove();
});
const pageOf = (view: PayerView) => book.page(view, PAGE_SIZE);
const rowsOf = (text: string) =>
  [...text.matchAll(/<tr data-category="[^"]+">\s*<td class="who"><a href="\/payers\/([^"]+)"/g)].map((m) => m[1]);

describe('the Payers page, a page at a time', () => {
  it('shows 100 payers a page of 50,000, with counts over all and the way to the next page, in a page of a few dozen kB', async () => {
    const page = toText(payersPage(await pageOf({ page: 1 }), { page: 1 }, 'csrf'));
    expect(rowsOf(page)).toHaveLength(PAGE_SIZE);
    expect(rowsOf(page)[0]).toBe('P-00001');
    expect(page).toContain('All: <strong>50000</strong>');
    expect(page).toContain('1–100 of 50,000');
    expect(page).toContain('<a href="/payers?page=2" rel="next">Next</a>');
    expect(page).not.toContain('rel="prev"');
    expect(Buffer.byteLength(page)).toBeLessThan(300_000);
  });

  it('a later page, a category and a search keep each other in every way to another view, the search never in a URL', async () => {
    const view = { category: 'payable' as const, search: 'p-0', page: 2 };
    const text = toText(payersFragment(await pageOf(view), view, 'csrf'));
    // P-00001 .. P-09999 hold "p-0"; a third of them are payable: page 2 is the 101st to the 200th of those.
    const found = lines.filter((l) => l.category === 'payable' && l.clientUserId.toLowerCase().includes('p-0'));
    expect(found.length).toBeGreaterThan(2 * PAGE_SIZE);
    expect(rowsOf(text)).toEqual(found.slice(PAGE_SIZE, 2 * PAGE_SIZE).map((l) => l.clientUserId));
    expect(viewQuery(view)).toBe('?category=payable&page=2');
    // With a search, the ways to other views are forms that post it.
    const form = (fields: string, label: string) =>
      `<form method="post" action="/payers" class="inline"><input type="hidden" name="_csrf" value="csrf"><input type="hidden" name="q" value="p-0">${fields}<button type="submit" class="link" ${label}`;
    expect(text).toContain(form('<input type="hidden" name="category" value="payable">', 'rel="prev">Previous'));
    expect(text).toContain(
      form(
        '<input type="hidden" name="category" value="payable"><input type="hidden" name="page" value="3">',
        'rel="next">Next',
      ),
    );
    expect(text).toContain(`101–200 of ${found.length.toLocaleString('en-US')}`);
    // The other categories' filters keep the search, and start again at the first page.
    expect(text).toContain(form('<input type="hidden" name="category" value="kyc-pending">', '>KYC pending'));
    expect(text).not.toMatch(/href="[^"]*q=/);
    // Without a search, plain links.
    const plain = toText(
      payersFragment(await pageOf({ category: 'payable', page: 2 }), { category: 'payable', page: 2 }, 'csrf'),
    );
    expect(plain).toContain('<a href="/payers?category=payable" rel="prev">Previous</a>');
  });

  it('finds a payer by name, both names, e-mail or company, in any case; a forgotten entry no more', async () => {
    const ids = async (search: string) =>
      (await pageOf({ search, page: 1 })).lines.map((l) => [l.clientUserId, l.who?.name, l.who?.email]);
    const emile = ['P-00042', 'Émile Zola', 'emile.zola@accounts-payable.example.com'];
    expect(await ids('ÉMILE')).toEqual([emile]);
    expect(await ids('émile zola')).toEqual([emile]);
    expect(await ids('Emile.Zola@Accounts')).toEqual([emile]);
    expect(await ids('featherstonehaugh-49999')).toEqual([
      [
        'P-50000',
        'Bartholomew-Alexander Featherstonehaugh-49999',
        'bartholomew.featherstonehaugh.49999@accounts-payable.example.com',
      ],
    ]);
    expect((await pageOf({ search: 'sons holdings 49994 ltd', page: 1 })).lines.map((l) => l.who?.name)).toEqual([
      'Bartholomew-Alexander Featherstonehaugh-49994 (Featherstonehaugh & Sons Holdings 49994 Ltd)',
    ]);
    // The directory is asked as the page is made: an entry forgotten is neither shown nor found.
    await store.directory(SERVICE).forget('P-00042');
    expect(await ids('zola')).toEqual([]);
    expect((await pageOf({ search: 'P-00042', page: 1 })).lines.map((l) => [l.clientUserId, l.who])).toEqual([
      ['P-00042', undefined],
    ]);
  });

  it('says so when no payer has the id searched for, and takes % and _ as they are', async () => {
    const text = toText(
      payersFragment(await pageOf({ search: 'nobody', page: 1 }), { search: 'nobody', page: 1 }, 'csrf'),
    );
    expect(rowsOf(text)).toEqual([]);
    expect(text).toContain('No payer with that name, e-mail, company or id here.');
    expect((await pageOf({ search: 'P-0000_', page: 1 })).found).toBe(0);
    expect((await pageOf({ search: '%', page: 1 })).found).toBe(0);
  });

  it('a page past the last shows the last; the CSV download is every payer of the view', async () => {
    const last = await pageOf({ category: 'payable', page: 999 });
    expect(last.lines.at(-1)?.clientUserId).toBe('P-49998');
    let count = 0;
    for await (const l of book.each({ category: 'payable' })) if (l.category === 'payable') count++;
    expect(count).toBe(lines.filter((l) => l.category === 'payable').length);
  });
});
