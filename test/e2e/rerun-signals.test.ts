import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, harness, payersCsv, readResults } from '../helpers/runHarness.js';
import { spawnBin, type Spawned } from '../helpers/spawnBin.js';
import { waitFor } from '../helpers/waitFor.js';

const stderrOf = (run: Spawned) => run.stderr();

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness({ latencyMs: 40 });
});
afterEach(async () => {
  await h.close();
});

const ids = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(3, '0')}`);
const runArgs = (out: string) => [
  'run',
  'payers.csv',
  '--base-url',
  h.sandbox.url,
  '--rate',
  '0',
  '--concurrency',
  '4',
  '--out',
  out,
  '--state-dir',
  'state',
  '--no-progress',
];

describe('interrupted and killed runs', () => {
  it('SIGINT: stops sending, lets calls in flight finish, writes every row, exits 3; the re-run finishes the job', async () => {
    h.tmp.write('payers.csv', payersCsv(ids(60, 'i')));
    const run = spawnBin(runArgs('out1'), { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } });
    await waitFor(() => h.sandbox.stats().payersCreated >= 8, 'the run to get going');
    run.child.kill('SIGINT');
    const { code, stderr } = await run.done;
    expect(stderr).toContain('SIGINT: finishing calls in flight');
    expect(code).toBe(3);

    const summary = JSON.parse(readFileSync(join(h.tmp.dir, 'out1', 'summary.json'), 'utf8'));
    expect(summary.aborted.reason).toBe('interrupted');
    const results = readResults(join(h.tmp.dir, 'out1', 'results.csv'));
    expect(results).toHaveLength(60); // every row accounted for
    expect(results.filter((r) => r.outcome === 'skipped').length).toBeGreaterThan(20);
    expect(results.every((r) => ['ok', 'skipped', 'failed'].includes(r.outcome!))).toBe(true);
    // No call was left half done: every payer the server created has the row's other calls too, or is not ok.
    const notOk = results.filter((r) => r.outcome !== 'ok').length;
    const rowsIn = (name: string) =>
      existsSync(join(h.tmp.dir, 'out1', name))
        ? readFileSync(join(h.tmp.dir, 'out1', name), 'utf8')
            .trim()
            .split('\n').length - 1
        : 0;
    expect(rowsIn('failed-payers.csv') + rowsIn('pending-payers.csv')).toBe(notOk);

    const again = await spawnBin(runArgs('out2'), { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } }).done;
    expect(again.code).toBe(0);
    expect(h.sandbox.stats()).toMatchObject({
      payersCreated: 60,
      paymentDetailsCreated: 60,
      agreementsCompleted: 60,
      duplicatePaymentDetails: 0,
    });
  });

  it('SIGKILL at several points, re-running each time: every payer and bank account created exactly once', async () => {
    const n = 50;
    h.tmp.write('payers.csv', payersCsv(ids(n, 'k')));
    const env = { PAYER_API_KEY: API_KEY };
    let previous = -1;
    for (const [i, atLeast] of [3, 15, 30].entries()) {
      const run = spawnBin(runArgs(`kill-${i}`), { cwd: h.tmp.dir, env });
      await waitFor(() => h.sandbox.stats().payersCreated >= atLeast, `${atLeast} payers`);
      run.child.kill('SIGKILL');
      const { signal } = await run.done;
      expect(signal).toBe('SIGKILL');
      expect(h.sandbox.stats().payersCreated).toBeGreaterThan(previous);
      previous = h.sandbox.stats().payersCreated;
    }
    const final = await spawnBin(runArgs('final'), { cwd: h.tmp.dir, env }).done;
    expect(final.stderr).toContain(`${n} ok, 0 waiting, 0 invalid, 0 failed, 0 skipped`);
    expect(final.code).toBe(0);

    const stats = h.sandbox.stats();
    // The sandbox ignores Idempotency-Key, as the real service does: the journal and the reads alone keep this.
    expect(stats).toMatchObject({
      payersCreated: n,
      paymentDetailsCreated: n,
      agreementsCompleted: n,
      duplicatePaymentDetails: 0,
      idempotentReplays: 0,
    });
    // Only payers in flight at a kill are re-registered (4 at a time): create compliance is safe to send again.
    expect(stats.duplicatePayers).toBeLessThanOrEqual(3 * 4);
    const results = readResults(join(h.tmp.dir, 'final', 'results.csv'));
    expect(results.map((r) => r.outcome)).toEqual(Array(n).fill('ok'));
    for (const row of results) expect(row.userId).toBe(h.sandbox.payer(row.clientUserId!)!.userId);
  });

  it('a second SIGINT exits at once, and the journal still makes the next run correct', async () => {
    h.tmp.write('payers.csv', payersCsv(ids(40, 'd')));
    const env = { PAYER_API_KEY: API_KEY };
    const run = spawnBin(runArgs('out1'), { cwd: h.tmp.dir, env });
    await waitFor(() => h.sandbox.stats().payersCreated >= 5, 'the run to get going');
    // The next answers take 3 s, so the drain after the first signal is surely still going at the second.
    h.sandbox.script([{ route: '*', fault: 'slow', delayMs: 3000, times: 4 }]);
    await waitFor(() => h.sandbox.stats().scripted >= 1, 'a slow call in flight');
    run.child.kill('SIGINT');
    await waitFor(
      () => run.child.exitCode !== null || /SIGINT: finishing/.test(stderrOf(run)),
      'the first signal to be taken',
    );
    run.child.kill('SIGINT');
    const { code, stderr } = await run.done;
    expect(code).toBe(3);
    expect(stderr).toContain('SIGINT again, exiting now');

    const again = await spawnBin(runArgs('out2'), { cwd: h.tmp.dir, env }).done;
    // The whole stderr when it fails: which rows did not end ok, and why.
    expect({ code: again.code, stderr: again.code === 0 ? '' : again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(h.sandbox.stats()).toMatchObject({
      payersCreated: 40,
      paymentDetailsCreated: 40,
      duplicatePaymentDetails: 0,
    });
  });
});
