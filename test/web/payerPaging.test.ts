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
    const view = { category: 'payable' as const, search: 'p-0001', page: 2 };
    const text = toText(payersFragment(lines, view));
    // P-00010 .. P-00019 and P-00100 .. P-00199 hold "p-0001"; a third of them are payable.
    const found = lines.filter((l) => l.category === 'payable' && l.clientUserId.toLowerCase().includes('p-0001'));
    expect(found.length).toBeLessThanOrEqual(PAGE_SIZE);
    // Page 2 of fewer than a page is the last page, that is the first.
    expect(rowsOf(text)).toEqual(found.map((l) => l.clientUserId));
    expect(viewQuery(view)).toBe('?category=payable&q=p-0001&page=2');
    expect(text).toContain('href="/payers?category=kyc-pending&amp;q=p-0001"');
  });

  it('says so when no payer has the id searched for', () => {
    const text = toText(payersFragment(lines, { search: 'nobody', page: 1 }));
    expect(rowsOf(text)).toEqual([]);
    expect(text).toContain('No payer with that id here.');
  });
});
