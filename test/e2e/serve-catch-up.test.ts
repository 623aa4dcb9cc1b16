import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// The service tries a delivery 4 times over about 21 s, then drops it. A serve down for longer lost those events:
// after a restart it reads once every payer waiting whose last check is older than the gap's start. The sandbox
// runs the service's schedule a tenth as long (about 2 s), and serve's window is set to match.

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => `cu-${String(i + 1).padStart(2, '0')}`);
const accountsOf = (payers: string[]) => payers.map((id) => h!.sandbox.payer(id)?.paymentDetails.length ?? -1);
const health = async () => (await (await fetch(`${h!.serve.url}/healthz`)).json()) as Record<string, unknown>;

async function registered(payers: string[]) {
  h!.inbox.drop('payers.csv', payersCsv(payers));
  await waitFor(() => h!.waitingFiles() > 0, 'the first run to leave its rows waiting');
  expect(h!.sandbox.stats()).toMatchObject({ payersCreated: payers.length, paymentDetailsCreated: 0 });
}

describe('serve: a gap in taking webhooks', () => {
  it('longer than the service retries: every payer approved meanwhile is caught up after the restart, none twice', async () => {
    h = await serveHarness({ serve: { catchUpAfterMs: 2000 } });
    const payers = ids(20);
    await registered(payers);
    await h.serve.close();
    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    // Each approval's delivery tried on its schedule against a serve that is not there, then dropped.
    // At least the approvals' (an agreement's of the first run, still on its schedule as serve stopped, may be too).
    await expect
      .poll(() => h!.sandbox.stats().webhooksDropped, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(payers.length);
    expect(accountsOf(payers)).toEqual(payers.map(() => 0));

    await h.restart();
    await waitFor(() => accountsOf(payers).every((n) => n === 1), 'the catch-up to attach every account');
    await waitFor(() => h!.waitingFiles() === 0, 'no row left waiting');
    await expect
      .poll(health)
      .toMatchObject({ catchUp: { rows: payers.length, done: payers.length, finishedAt: expect.any(String) } });
    expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: payers.length, duplicatePaymentDetails: 0 });
    expect(h.stderr()).toMatch(
      /serve: no webhooks could be taken for \d+ s \(since [0-9T:.-]+Z\), longer than the service's retries/,
    );
    expect(h.stderr()).toContain('waiting rows read again');
    const metrics = await (await fetch(`${h.serve.url}/metrics`)).text();
    expect(metrics).toMatch(/^payer_onboard_catch_up_rows_left 0$/m);
  });

  it('a bank account whose check failed during the gap: the catch-up asks the service, and its payer lands in failed/', async () => {
    h = await serveHarness({ serve: { catchUpAfterMs: 2000 } });
    const payers = ids(3);
    await registered(payers);
    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    await waitFor(() => accountsOf(payers).every((n) => n === 1), 'every account attached');
    await waitFor(() => h!.waitingFiles() === 0, 'no row left waiting');
    await h.serve.close();
    // The provider refuses one while serve is down: its payment_detail.updated is dropped after its retries.
    const dropped = h.sandbox.stats().webhooksDropped;
    h.sandbox.setPaymentDetailStatus(h.sandbox.payer(payers[1]!)!.paymentDetails[0]!.id, 'failed');
    await expect.poll(() => h!.sandbox.stats().webhooksDropped, { timeout: 15_000 }).toBe(dropped + 1);

    await h.restart();
    await waitFor(
      () => h!.inbox.list('failed').some((f) => /^bank-accounts-.*\.csv$/.test(f)),
      'the refusal in failed/',
    );
    const file = h.inbox.list('failed').find((f) => /^bank-accounts-.*\.csv$/.test(f))!;
    const lines = readFileSync(h.inbox.path('failed', file), 'utf8').trim().split('\n');
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([payers[1]]);
    await expect.poll(health).toMatchObject({ catchUp: { finishedAt: expect.any(String) } });
    expect(h.stderr()).toMatch(/serve: caught up 3 payers' new bank accounts: 1 to ask for other details in failed\//);
    expect(h.sandbox.stats().duplicatePaymentDetails).toBe(0);
  });

  it('shorter than the service retries: none needed, the waiting payers are not read', async () => {
    h = await serveHarness({ serve: { catchUpAfterMs: 60_000 } });
    const payers = ids(3);
    await registered(payers);
    const before = h.sandbox.stats().requests;
    await h.restart();
    // Decided as serve starts, from when it was last alive: the stop, a moment before.
    expect((await health()).catchUp).toBeUndefined();
    expect(h.sandbox.stats().requests).toBe(before);
    expect(h.stderr()).not.toContain('no webhooks could be taken');
  });
});

describe('serve: no webhook for long while payers wait', () => {
  it('/healthz says so, and that the recheck carries the load', async () => {
    // The payer events are "legacy integrations" in the service's documents: they may stop coming.
    h = await serveHarness({ serve: { quietAfter: 0.5 / 3600 } });
    await registered(ids(2));
    await h.restart();
    await expect
      .poll(async () => (await health()).quiet, { timeout: 10_000 })
      .toMatchObject({ waitingPayers: 2, since: expect.any(String) });
    expect(((await health()).quiet as { note: string }).note).toMatch(
      /^no webhook for 0 h while 2 payers wait: the service lists these events under legacy integrations; check the webhook registered for this Client ID\. The recheck \(--recheck-after\) reads them meanwhile$/,
    );
  });
});
