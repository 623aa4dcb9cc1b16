import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// A payer the provider approved while serve did not follow the approvals (its page was off: the approval's webhook
// was nothing to act on) is shown by the service's word once the page, turned on, has read it: the first time the
// page is shown, the payers whose bank account was stored with no read since are read once, and never again.

const PASSWORD = 'correct horse battery staple';
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function signIn(
  url: string,
): Promise<{ get: (path: string) => Promise<string>; find: (q: string) => Promise<string> }> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const get = async (path: string) => (await fetch(`${url}${path}`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await get('/'))![1]!;
  const find = async (q: string) =>
    (
      await fetch(`${url}/payers`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, q }).toString(),
      })
    ).text();
  return { get, find };
}

/** Every log file under a folder, read. */
function logsUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.log'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
}

/** The Payers table's rows: each payer's id and category. */
const categories = (page: string) =>
  [...page.matchAll(/<tr data-category="([^"]+)">.*?<span class="id">([^<]+)<\/span>/gs)].map((m) => `${m[2]} ${m[1]}`);

describe('the Payers page, turned on after its payers were approved', () => {
  it('reads once the payers whose bank account was stored while nothing followed: payable, by the service', async () => {
    // The provider approves a stored account at once; serve runs without its page.
    h = await serveHarness({ sandbox: { accountApproveMs: 0 } });
    h.inbox.drop('payers.csv', payersCsv(['early-1', 'early-2']));
    await waitFor(() => h!.waitingFiles() > 0, 'the first run to leave its rows waiting');
    for (const id of ['early-1', 'early-2']) h.sandbox.setKyc(id, 'approved');
    await waitFor(() => h!.waitingFiles() === 0, 'both bank accounts attached');
    await waitFor(
      () => ['early-1', 'early-2'].every((id) => h!.sandbox.payer(id)?.paymentDetails.length === 1),
      'both accounts stored',
    );

    await h.restart({ webPassword: PASSWORD });
    const { get, find } = await signIn(h.serve.url);
    const before = h.sandbox.stats().reads;
    // Shown at once from what serve has run; the read goes on behind it.
    expect(categories(await get('/payers')).sort()).toEqual(['early-1 bank-pending', 'early-2 bank-pending']);
    await waitFor(
      async () => categories(await get('/payers')).every((row) => row.endsWith(' payable')),
      'the first read to say payable',
    );
    const line = await get('/payers/early-1');
    expect(line).toContain(
      '<dd id="standing">Payable: identity checked, agreement signed, bank account approved.</dd>',
    );
    expect(line).not.toContain('data-copy');
    // One read of each payer and of its accounts, and no more however often the page is shown.
    const reads = h.sandbox.stats().reads - before;
    expect(reads).toBe(4);
    await get('/payers');
    await get('/payers/fragment');
    expect(h.sandbox.stats().reads - before).toBe(reads);

    // Found by name and by e-mail address; neither what was searched for nor who was found reaches a log.
    expect(categories(await find('ADA lovelace')).sort()).toEqual(['early-1 payable', 'early-2 payable']);
    expect(categories(await find('early-2@example'))).toEqual(['early-2 payable']);
    const logs = `${h.stderr()}\n${logsUnder(h.tmp.dir)}`;
    expect(logs).toContain('"msg":"run finished"');
    for (const personal of ['Lovelace', 'ADA', '@example.com']) expect(logs).not.toContain(personal);
  });
});
