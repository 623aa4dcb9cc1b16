import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/pipeline/run.js';
import { API_KEY, harness, memoryStream, payersCsv, readResults } from '../helpers/runHarness.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scriptedServer.js';
import { tempDir } from '../helpers/tempDir.js';

// A captive portal, a misconfigured proxy or a --base-url pointing at a web server answers `200 text/html` to
// everything: that was `3 rows, 3 ok`, exit 0, with no userId. A 2xx is success only when it is the operation's answer.

let server: ScriptedServer | undefined;
let tmp: ReturnType<typeof tempDir> | undefined;
let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  tmp?.remove();
  tmp = undefined;
  await h?.close();
  h = undefined;
});

const PAGE = '<!doctype html><title>Welcome</title><p>Please sign in to use this network.</p>';

describe('run: a server that answers, but not as the API does', () => {
  it('200 text/html to everything: no row ok, exit 3 at once, one line naming the base URL and the answer', async () => {
    server = await startScriptedServer(() => ({
      status: 200,
      body: PAGE,
      headers: { 'content-type': 'text/html; charset=utf-8' },
    }));
    tmp = tempDir();
    const ids = Array.from({ length: 30 }, (_, i) => `u-${i + 1}`);
    const input = tmp.write('payers.csv', payersCsv(ids));
    const err = memoryStream();
    const started = performance.now();
    const summary = await run(
      { inputs: [input], baseUrl: server.url, out: tmp.path('out'), stateDir: tmp.path('state'), rate: 0 },
      // The default backoff: what a user gets.
      { cwd: tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: err.stream },
    );
    const seconds = (performance.now() - started) / 1000;

    const message = `this does not look like the Payer API at ${server.url}: 200 text/html`;
    expect(summary).toMatchObject({ exitCode: 3, aborted: { reason: 'not-the-api', message } });
    expect(seconds).toBeLessThan(10);
    // Three answers decide it; the first batch in flight is all that went out.
    expect(server.hits.length).toBeLessThanOrEqual(16);
    expect(summary.rows.ok).toBe(0);
    const results = readResults(summary.outputs.results);
    expect(results.filter((r) => r.outcome === 'ok')).toEqual([]);
    expect(results.every((r) => r.userId === '')).toBe(true);
    expect(results.map((r) => r.steps).join(' ')).not.toContain('=ok');
    expect(
      err
        .text()
        .split('\n')
        .filter((line) => line.includes('does not look like')),
    ).toEqual([`  ABORTED: ${message}`]);
  });

  it('one create of a bank account answered 200 text/html, not stored: a read finds none, and it is created once', async () => {
    h = await harness();
    const input = h.tmp.write('payers.csv', payersCsv(['p-1', 'p-2', 'p-3']));
    h.sandbox.script([{ route: 'payment-details', status: 200, body: PAGE, contentType: 'text/html' }]);
    const { summary, results } = await h.run({ inputs: [input] });

    expect(summary.exitCode).toBe(0);
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok']);
    for (const id of ['p-1', 'p-2', 'p-3']) expect(h.sandbox.payer(id)!.paymentDetails).toHaveLength(1);
    expect(h.sandbox.stats().byRoute['payment-details']).toBe(4);
  });

  it('one create stored and then answered 200 text/html: the read finds the new id and adopts it, no second one', async () => {
    h = await harness();
    const input = h.tmp.write('payers.csv', payersCsv(['p-1', 'p-2', 'p-3']));
    h.sandbox.script([
      { route: 'payment-details', fault: 'commit500', status: 200, body: PAGE, contentType: 'text/html' },
    ]);
    const { summary, results } = await h.run({ inputs: [input] });

    expect(summary.exitCode).toBe(0);
    expect(results.map((r) => [r.outcome, r.paymentDetailId === ''])).toEqual([
      ['ok', false],
      ['ok', false],
      ['ok', false],
    ]);
    for (const id of ['p-1', 'p-2', 'p-3']) expect(h.sandbox.payer(id)!.paymentDetails).toHaveLength(1);
    expect(h.sandbox.stats().byRoute['payment-details']).toBe(3);
    // Adopted by the read: the row's account is the one the sandbox stored.
    for (const r of results) expect(r.paymentDetailId).toBe(h.sandbox.payer(r.clientUserId!)!.paymentDetails[0]!.id);
  });
});
