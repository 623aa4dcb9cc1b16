import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../src/store/openStore.js';
import type { Executor } from '../src/store/SqlJournal.js';
import type { DirectoryEntry, StoredPayer } from '../src/store/Store.js';
import { layout } from '../src/web/layout.js';
import { PayerBook, type PayerLine, type PayerView } from '../src/web/payerBook.js';
import { PAGE_SIZE, payersPage as pageOf } from '../src/web/payerPages.js';
import { type Figure, runEnv } from './scenarios.js';
import { SCRATCH } from './spawnCli.js';

// The Payers page of a team of 100,000 payers, each with a directory entry (names, e-mail, some a company): how long
// its first page and a search take to be made (the store's queries and the page's HTML, as serve answers them; the
// network aside), and how many bytes the page is. Each search is a text not asked before: none is remembered.

const PAYERS = Number(process.env.BENCH_PAYERS_PAGE ?? 100_000);
const SERVICE = 'api.example.com-0123456789ab';
const CATEGORIES: Array<PayerLine['category']> = ['kyc-pending', 'agreement-pending', 'bank-pending', 'payable'];

export async function payersPage(): Promise<Figure[]> {
  const dir = join(SCRATCH, `payers-page-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const store = await openStore({ stateDir: dir, databaseUrl: runEnv.PAYER_ONBOARD_DATABASE_URL });
  try {
    await fill(store);
    const book = new PayerBook(join(dir, 'results'), { stateDir: dir, service: SERVICE, jsonl: [], open: store });
    const made = async (view: PayerView) => {
      const started = performance.now();
      const page = await book.page(view, PAGE_SIZE);
      const text = layout('Payers', pageOf(page, view, 'x'.repeat(43)), { csrf: 'x'.repeat(43) }, ['live.js']);
      return { ms: performance.now() - started, bytes: Buffer.byteLength(text), found: page.found };
    };
    const first = await made({ page: 1 });
    const again = await made({ page: 1 });
    const last = await made({ page: Math.ceil(PAYERS / PAGE_SIZE) });
    // A name one payer has, an e-mail address's part all have, a part of ids, a company's name: each asked anew.
    const searches = ['zola', 'accounts-payable', 'p-0999', 'sons holdings 4999'];
    const timed = [];
    for (const search of searches) timed.push({ search, ...(await made({ search, page: 1 })) });
    const slowest = timed.reduce((a, b) => (b.ms > a.ms ? b : a));
    const figure = (name: string, value: number, unit: string, bar: number, note: string): Figure => ({
      scenario: 'payers-page',
      name,
      value: Math.round(value),
      unit,
      bar: `<= ${bar}`,
      pass: value <= bar,
      note,
    });
    const note = `${PAYERS.toLocaleString('en-US')} payers, ${store.location.endsWith('.db') ? 'SQLite' : 'PostgreSQL'}`;
    return [
      figure('first page, first shown (counts made)', first.ms, 'ms', 300, note),
      figure('first page, again', again.ms, 'ms', 300, note),
      figure('last page', last.ms, 'ms', 300, note),
      figure(
        'a search (slowest of 4)',
        slowest.ms,
        'ms',
        300,
        `${note}; ${timed.map((t) => `"${t.search}" ${Math.round(t.ms)} ms, ${t.found} found`).join('; ')}`,
      ),
      figure('the page', Math.max(first.bytes, ...timed.map((t) => t.bytes)) / 1000, 'kB', 300, note),
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The store of a team that has run them all: their lines, and who each is. */
async function fill(store: Awaited<ReturnType<typeof openStore>>): Promise<void> {
  const payers: StoredPayer[] = [];
  const entries: DirectoryEntry[] = [];
  for (let i = 0; i < PAYERS; i++) {
    const id = `P-${String(i).padStart(6, '0')}`;
    const category = CATEGORIES[i % CATEGORIES.length]!;
    const line: PayerLine = {
      clientUserId: id,
      userId: `7f3c1e2a-0b4d-4c8e-9a6f-${String(i).padStart(12, '0')}`,
      category,
      kycStatus: category === 'kyc-pending' ? 'pending' : 'approved',
      agreementStatus: category === 'kyc-pending' || category === 'agreement-pending' ? 'pending' : 'completed',
      bank: category === 'payable' ? 'approved' : 'stored, being checked',
      kycUrl: `https://kyc.example.com/verify/${id}/0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c`,
      agreementUrl: `https://agreements.example.com/sign/${id}/0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c`,
      since: '2026-11-02T09:14:00.000Z',
      checkedAt: '2026-12-01T10:00:00.000Z',
      error: category === 'kyc-pending' ? 'payment-details: waiting for KYC approval (kycStatus pending)' : '',
    };
    payers.push({ clientUserId: id, category, line: JSON.stringify(line), seen: '{}' });
    entries.push({
      clientUserId: id,
      firstName: i === 4242 ? 'Émile' : 'Bartholomew-Alexander',
      lastName: i === 4242 ? 'Zola' : `Featherstonehaugh-${i}`,
      email: `bartholomew.featherstonehaugh.${i}@accounts-payable.example.com`,
      ...(i % 7 === 0 ? { companyName: `Featherstonehaugh & Sons Holdings ${i} Ltd` } : {}),
      updatedAt: '2026-11-02T09:14:00.000Z',
    });
  }
  for (let i = 0; i < PAYERS; i += 5000) {
    await store.payers(SERVICE).put(payers.slice(i, i + 5000), []);
    await store.directory(SERVICE).putEntries(entries.slice(i, i + 5000));
  }
  // A store that has had these payers for a while has its statistics (PostgreSQL's autovacuum gathers them within a
  // minute of so many rows): a table just filled would be planned as if it were empty.
  await (store as unknown as { sql: Executor }).sql.change('ANALYZE', []);
}
