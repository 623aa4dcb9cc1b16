import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { payersCsv, readResults } from '../helpers/runHarness.js';
import { serveHarness, WEBHOOK_SECRET } from '../helpers/serveHarness.js';
import { eventsIn } from '../helpers/storeOnDisk.js';
import { waitFor } from '../helpers/waitFor.js';

// The sandbox sends the service's signed webhooks to `serve` over real HTTP on loopback; serve runs the inbox.

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number, prefix = 'w') =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(2, '0')}`);

/** Every payer's stored accounts, by id: exactly one each means nothing was created twice. */
function accountsOf(harness: NonNullable<typeof h>, payers: string[]): number[] {
  return payers.map((id) => harness.sandbox.payer(id)?.paymentDetails.length ?? -1);
}

async function registered(harness: NonNullable<typeof h>, payers: string[], file = 'payers.csv') {
  harness.inbox.drop(file, payersCsv(payers));
  await waitFor(() => harness.waitingFiles() > 0, 'the first run to leave its rows waiting');
  expect(harness.sandbox.stats()).toMatchObject({ payersCreated: payers.length, paymentDetailsCreated: 0 });
}

function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

const sign = (body: string) => createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');

describe('serve: webhooks move waiting payers on', () => {
  it('KYC approved -> each bank account attached and agreement completed, exactly once though every delivery comes twice', async () => {
    h = await serveHarness({ sandbox: { webhookTwice: 1 } });
    const payers = ids(6);
    await registered(h, payers);
    const readsBefore = h.sandbox.stats().requests;
    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    await waitFor(() => accountsOf(h!, payers).every((n) => n === 1), 'every account attached');
    await waitFor(() => h!.waitingFiles() === 0, 'no row to be left waiting');
    expect(accountsOf(h, payers)).toEqual(payers.map(() => 1));
    for (const id of payers) expect(h.sandbox.payer(id)?.agreementStatus).toBe('completed');
    const metrics = await (await fetch(`${h.serve.url}/metrics`)).text();
    expect(metrics).toMatch(/payer_onboard_webhooks_total\{result="duplicate"\} [1-9]/);
    // One status read and one create a payer, sent in the runs the events started: no recheck polled them.
    const spent = h.sandbox.stats().requests - readsBefore;
    expect(spent).toBeLessThanOrEqual(payers.length * 3);
  });

  it("an approval runs its payer's rows only, found by the index: one row run, whatever else waits", async () => {
    h = await serveHarness();
    const payers = ids(12);
    await registered(h, payers);
    h.sandbox.setKyc('w-05', 'approved');
    await waitFor(() => accountsOf(h!, ['w-05'])[0] === 1, "w-05's account attached");
    await waitFor(() => h!.waiting()['pending-payers.csv'] === 11, 'its row to stop waiting');
    const runs = h.inbox.list('results').filter((name) => name.startsWith('pending-payers.csv-'));
    expect(runs).toHaveLength(1);
    const rows = readResults(h.inbox.path('results', runs[0]!, 'results.csv'));
    expect(rows.map((r) => [r.clientUserId, r.outcome])).toEqual([['w-05', 'ok']]);
    expect(accountsOf(h, payers)).toEqual(payers.map((id) => (id === 'w-05' ? 1 : 0)));
  });

  it('a bad signature, an oversized body, a slow body and a body that is no event are refused, and change nothing', async () => {
    h = await serveHarness({ serve: { bodyTimeoutMs: 300 } });
    const url = `${h.serve.url}/webhooks`;
    const body = JSON.stringify({ event: 'compliance.updated', clientUserId: 'x-1', kycStatus: 'approved' });
    expect((await post(url, body)).status).toBe(401);
    expect((await post(url, body, { 'x-request-network-signature': 'ab'.repeat(32) })).status).toBe(401);
    const big = JSON.stringify({ event: 'compliance.updated', pad: 'x'.repeat(1024 * 1024 + 10) });
    expect((await post(url, big, { 'x-request-network-signature': sign(big) })).status).toBe(413);
    expect((await post(url, 'not json', { 'x-request-network-signature': sign('not json') })).status).toBe(400);
    expect(await slowPost(url, body)).toBe(408);
    const health = (await (await fetch(`${h.serve.url}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ ok: true, eventsPending: 0 });
    const metrics = await (await fetch(`${h.serve.url}/metrics`)).text();
    for (const reason of ['signature', 'too-large', 'too-slow', 'not-an-event'])
      expect(metrics).toContain(`payer_onboard_webhooks_total{result="${reason}"}`);
    expect(metrics).not.toContain('result="recorded"');
    // A signed one is taken, whatever its content type says.
    expect((await post(url, body, { 'x-request-network-signature': sign(body) })).status).toBe(200);
    const other = JSON.stringify({ event: 'compliance.updated', userId: 'u-9', kycStatus: 'approved' });
    const plain = { 'content-type': 'text/plain; charset=utf-8', 'x-request-network-signature': sign(other) };
    expect((await post(url, other, plain)).status).toBe(200);
    const bare = await fetch(url, {
      method: 'POST',
      body: new Blob([other]),
      headers: { 'x-request-network-signature': sign(other) },
    });
    expect([bare.status, await bare.json()]).toEqual([200, { received: true, duplicate: true }]);
  });

  it('deliveries lost -> the recheck of waiting payers still finishes every one', async () => {
    h = await serveHarness({ sandbox: { webhookDrop: 1 }, serve: { recheckAfter: 1 / 3600 } });
    const payers = ids(5, 'd');
    await registered(h, payers);
    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    await waitFor(() => h!.waitingFiles() === 0, 'the recheck to finish every payer');
    expect(accountsOf(h, payers)).toEqual(payers.map(() => 1));
    expect(h.sandbox.stats()).toMatchObject({ webhooksSent: 0 });
    expect(h.sandbox.stats().webhooksLost).toBeGreaterThanOrEqual(payers.length);
  });

  it('deliveries as the service sends them: a retry of a delivery id is one delivery; a test delivery changes nothing', async () => {
    h = await serveHarness();
    const url = `${h.serve.url}/webhooks`;
    const body = JSON.stringify({ event: 'compliance.updated', clientUserId: 'stranger', kycStatus: 'approved' });
    const delivery = (id: string) => ({ 'x-request-network-signature': sign(body), 'x-request-network-delivery': id });
    const answers: unknown[] = [];
    // The first delivery, its retry, and another delivery of the same body: two deliveries.
    for (const id of ['01JD7Q2X8M4N6P0R2T4V6X8Z0A', '01JD7Q2X8M4N6P0R2T4V6X8Z0A', '01JD7Q2X8M4N6P0R2T4V6X8Z0B'])
      answers.push(await (await post(url, body, delivery(id))).json());
    expect(answers).toEqual([{ received: true }, { received: true, duplicate: true }, { received: true }]);
    expect(eventsIn(h.tmp.path('state')).recorded.sort()).toEqual([
      '01JD7Q2X8M4N6P0R2T4V6X8Z0A',
      '01JD7Q2X8M4N6P0R2T4V6X8Z0B',
    ]);

    // A test delivery: placeholder data, checked like any other, acknowledged, and nothing recorded or run.
    const test = JSON.stringify({ event: 'compliance.updated', clientUserId: 'placeholder', kycStatus: 'approved' });
    expect((await post(url, test, { 'x-request-network-test': 'true' })).status).toBe(401);
    const answered = await post(url, test, {
      'x-request-network-signature': sign(test),
      'x-request-network-test': 'true',
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ received: true, test: true });
    expect(h.stderr()).toContain(
      'a test delivery from the service (compliance.updated): signature good; nothing changed',
    );
    expect(eventsIn(h.tmp.path('state')).recorded).toHaveLength(2);
    const metrics = await (await fetch(`${h.serve.url}/metrics`)).text();
    expect(metrics).toMatch(/payer_onboard_webhooks_total\{result="test"\} 1$/m);
    expect(metrics).toMatch(/payer_onboard_webhooks_total\{result="duplicate"\} 1$/m);
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('events for payers the journal does not know and events of other types are answered 200 and ignored', async () => {
    h = await serveHarness();
    const url = `${h.serve.url}/webhooks`;
    for (const event of [
      { event: 'compliance.updated', clientUserId: 'stranger', kycStatus: 'approved' },
      { event: 'payer.deleted', clientUserId: 'stranger' },
    ]) {
      const body = JSON.stringify(event);
      expect((await post(url, body, { 'x-request-network-signature': sign(body) })).status).toBe(200);
    }
    await waitFor(() => /ignored: an event type/.test(h!.stderr()), 'the unknown type logged');
    await waitFor(() => /ignored: a payer the journal does not know/.test(h!.stderr()), 'the stranger logged');
    expect(h.sandbox.stats().requests).toBe(0);
    expect(readdirSync(h.inbox.path('results'))).toEqual([]);
  });
});

/** Headers and half a body, then nothing: the answer's status (408 expected), read as the server sends it. */
function slowPost(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(body.length),
        'x-request-network-signature': sign(body),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
  });
}

describe('serve: stops and trouble lose no event', () => {
  it('a shutdown in the middle of a batch leaves its events recorded; the next start acts on them', async () => {
    h = await serveHarness({ sandbox: { latencyMs: 150 } });
    const payers = ids(3, 's');
    await registered(h, payers);
    const reads = () => h!.sandbox.stats().requests;
    const before = reads();
    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    // The batch has begun (its first read is at the sandbox) and cannot have ended (each answer takes 150 ms).
    await waitFor(() => reads() > before, 'the batch to send its first read', { intervalMs: 5 });
    await h.serve.close();
    expect(accountsOf(h, payers).some((n) => n === 0)).toBe(true);
    const health = await h.restart();
    await waitFor(() => accountsOf(h!, payers).every((n) => n === 1), 'the restart to act on the recorded events');
    expect(health.url).toMatch(/^http:/);
    expect(accountsOf(h, payers)).toEqual([1, 1, 1]);
  });

  it('a run that stops (the key refused) pauses serve; after the pause the file is resumed and the events acted on', async () => {
    h = await serveHarness({ serve: { pauseMs: 300 } });
    const payers = ids(2, 'r');
    h.sandbox.script([{ route: '*', status: 401, times: 1 }]);
    h.inbox.drop('payers.csv', payersCsv(payers));
    await waitFor(() => /trying again in/.test(h!.stderr()), 'serve to pause');
    // After the pause the file is resumed: its payers are registered, then approved.
    await waitFor(() => payers.every((id) => h!.sandbox.payer(id) !== undefined), 'the resumed file to register them');
    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    await waitFor(() => accountsOf(h!, payers).every((n) => n === 1), 'the resumed file and the events to finish');
    await waitFor(() => h!.inbox.list('processing').length === 0, 'the resumed file to leave processing/');
    expect(accountsOf(h, payers)).toEqual([1, 1]);
  });

  it('a file in waiting/ that is no rows of ours goes to failed/ with a note; serve goes on', async () => {
    h = await serveHarness({ startServe: false });
    h.inbox.drop('notes.csv', 'name,email\nAda,ada@example.com\n', 60, 'waiting');
    await h.restart();
    await waitFor(() => h!.inbox.list('failed').includes('notes.csv'), 'the file moved to failed/');
    expect(readFileSync(h.inbox.path('failed', 'notes.csv.error.txt'), 'utf8')).toContain('cannot be read as rows');
    const payers = ids(1, 'n');
    await registered(h, payers);
  });

  it('--dry-run, --limit and --only are refused: each would drop waiting rows as done', async () => {
    for (const run of [{ dryRun: true }, { limit: 1 }, { only: ['x'] }]) {
      await expect(serveHarness({ serve: { run: { rate: 0, ...run } } })).rejects.toThrow(/cannot be used with serve/);
    }
  });
});
