import { describe, expect, it } from 'vitest';
import { toText } from '../../src/web/html.js';
import type { PayerLine } from '../../src/web/payerBook.js';
import { PAGE_SIZE, payersFragment, payersPage, viewQuery } from '../../src/web/payerPages.js';

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
const rowsOf = (text: string) =>
  [...text.matchAll(/<tr data-category="[^"]+">\s*<td><a href="\/payers\/([^"]+)"/g)].map((m) => m[1]);

describe('the Payers page, a page at a time', () => {
  it('shows 100 payers a page of 50,000, with counts over all and the way to the next page, in a page of a few dozen kB', () => {
    const page = toText(payersPage(lines, { page: 1 }, 'csrf'));
    expect(rowsOf(page)).toHaveLength(PAGE_SIZE);
    expect(rowsOf(page)[0]).toBe('P-00001');
    expect(page).toContain('All: <strong>50000</strong>');
    expect(page).toContain('1–100 of 50,000');
    expect(page).toContain('<a href="/payers?page=2" rel="next">Next</a>');
    expect(page).not.toContain('rel="prev"');
    expect(Buffer.byteLength(page)).toBeLessThan(300_000);
  });

  it('a later page, a category and a search by id keep each other in every link', () => {
    const view = { category: 'payable' as const, search: 'p-0', page: 2 };
    const text = toText(payersFragment(lines, view));
    // P-00001 .. P-09999 hold "p-0"; a third of them are payable: page 2 is the 101st to the 200th of those.
    const found = lines.filter((l) => l.category === 'payable' && l.clientUserId.toLowerCase().includes('p-0'));
    expect(found.length).toBeGreaterThan(2 * PAGE_SIZE);
    expect(rowsOf(text)).toEqual(found.slice(PAGE_SIZE, 2 * PAGE_SIZE).map((l) => l.clientUserId));
    expect(viewQuery(view)).toBe('?category=payable&q=p-0&page=2');
    expect(text).toContain('<a href="/payers?category=payable&amp;q=p-0" rel="prev">Previous</a>');
    expect(text).toContain('<a href="/payers?category=payable&amp;q=p-0&amp;page=3" rel="next">Next</a>');
    expect(text).toContain(`101–200 of ${found.length.toLocaleString('en-US')}`);
    // The other categories' filters keep the search, and start again at the first page.
    expect(text).toContain('href="/payers?category=kyc-pending&amp;q=p-0"');
  });

  it('says so when no payer has the id searched for', () => {
    const text = toText(payersFragment(lines, { search: 'nobody', page: 1 }));
    expect(rowsOf(text)).toEqual([]);
    expect(text).toContain('No payer with that id here.');
  });
});
