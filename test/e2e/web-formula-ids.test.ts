import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// Payers whose ids a spreadsheet would run as formulas: results.csv and status.csv write them with a `'` before
// (`'=abc`). What serve shows and looks up is the id itself, wherever it reads those files back.

const PASSWORD = 'correct horse battery staple';
const IDS = ['=abc', '-xyz', '@at', '+plus'];
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function signedIn(url: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = await (await fetch(`${url}/`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]! };
}

/** Each row of the Payers table: its category, its link and the id it shows (after the name the directory has). */
function payerRows(page: string): string[] {
  return [
    ...page.matchAll(
      /<tr data-category="([^"]+)">\s*<td class="who"><a href="([^"]+)">.*?<span class="id">([^<]+)<\/span><\/td>/g,
    ),
  ].map((m) => m.slice(1).join(' '));
}

/** Valid rows for ids that are not e-mail friendly: each gets an address of its own. */
const rows = (ids: string[]) =>
  payersCsv(ids, Object.fromEntries(ids.map((id, i) => [id, { email: `payer-${i}@example.com` }])));

describe('a payer whose id starts like a formula', () => {
  it('the Payers page shows it, finds it and opens its page by its own id; a failed bank check names it so', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    h.inbox.drop('payers.csv', rows(IDS));
    await waitFor(() => h!.waitingFiles() > 0, 'the first run to leave its rows waiting');
    const { cookie, csrf } = await signedIn(url);
    const get = async (path: string) => fetch(`${url}${path}`, { headers: { cookie } });
    const find = async (q: string) =>
      fetch(`${url}/payers`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, q }).toString(),
      });

    expect(payerRows(await (await get('/payers')).text())).toEqual([
      'kyc-pending /payers/%3Dabc =abc',
      'kyc-pending /payers/-xyz -xyz',
      'kyc-pending /payers/%40at @at',
      'kyc-pending /payers/%2Bplus +plus',
    ]);
    expect(payerRows(await (await find('=abc')).text())).toEqual(['kyc-pending /payers/%3Dabc =abc']);
    const own = await get('/payers/%3Dabc');
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('<dt>clientUserId</dt><dd class="id">=abc</dd>');
    // The CSV download guards it once, as every CSV of the tool does.
    expect((await (await get('/payers.csv')).text()).split('\n')[1]).toMatch(/^'=abc,/);

    for (const id of IDS) h.sandbox.setKyc(id, 'approved');
    await waitFor(() => h!.waitingFiles() === 0, 'every bank account attached');
    h.sandbox.setPaymentDetailStatus(h.sandbox.payer('=abc')!.paymentDetails[0]!.id, 'failed');
    await waitFor(() => h!.inbox.list('failed').some((f) => /^bank-accounts-.*\.csv$/.test(f)), 'the bank check');
    const file = h.inbox.list('failed').find((f) => /^bank-accounts-.*\.csv$/.test(f))!;
    const lines = readFileSync(h.inbox.path('failed', file), 'utf8').trim().split('\n');
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(["'=abc"]);
    await waitFor(async () => (await (await get('/payers')).text()).includes('bank-failed'), 'the page to follow');
    expect(payerRows(await (await get('/payers?category=bank-failed')).text())).toEqual([
      'bank-failed /payers/%3Dabc =abc',
    ]);
  });

  it("an upload's check names a row to fix by its payer's own id", async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    const { cookie, csrf } = await signedIn(url);
    // JSON lines: a file with no grid to fix it in, whose page lists the rows to fix by line and payer.
    const [header, row] = payersCsv(['=bad'], { '=bad': { email: 'not-an-address' } })
      .trim()
      .split('\n');
    const cells = row!.split(',');
    const line = JSON.stringify(Object.fromEntries(header!.split(',').map((column, i) => [column, cells[i]])));
    const file = new FormData();
    file.append('file', new Blob([`${line}\n`]), 'payers.jsonl');
    const taken = await fetch(`${url}/uploads?_csrf=${csrf}`, {
      method: 'POST',
      body: file,
      headers: { cookie },
      redirect: 'manual',
    });
    const page = await (await fetch(`${url}${taken.headers.get('location')}`, { headers: { cookie } })).text();
    expect(page).toMatch(/<tr><td>1<\/td><td>=bad<\/td><td>email: /);
  });
});
