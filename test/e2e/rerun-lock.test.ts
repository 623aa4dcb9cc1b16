import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockedError } from '../../src/core/errors.js';
import { journalName, serviceIdentity } from '../../src/journal/stateDir.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runStatus } from '../../src/status/runStatus.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** This test's own home: the run locks and the default state dir live under it, never in the user's. */
const env = () => ({ PAYER_API_KEY: API_KEY, HOME: h.tmp.path('home') });
const serviceLock = (baseUrl = h.sandbox.url) =>
  h.tmp.path(`home/.local/state/payer-onboard/locks/${journalName(serviceIdentity(baseUrl), API_KEY)}.lock`);

function writeLock(path: string, pid: number) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    JSON.stringify({
      pid,
      host: hostname(),
      startedAt: '2026-11-21T10:00:00.000Z',
      runId: 'other-run',
      stateDir: '/x',
    }),
  );
  return path;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

const ids = (n: number) => Array.from({ length: n }, (_, i) => `c-${String(i + 1).padStart(3, '0')}`);

describe('one run at a time per service and key, wherever its state dir is', () => {
  it('turns away a second run of the same file with its own --state-dir (exit 2, naming the first): nothing created twice', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(ids(60)));
    // Both start in the same turn: the first takes the lock before its first await, so they overlap for sure.
    const first = h.run({ inputs: [input], stateDir: h.tmp.path('state-a') }, env());
    const second = failure(h.run({ inputs: [input], stateDir: h.tmp.path('state-b') }, env()));
    const error = await second;
    expect(error).toBeInstanceOf(LockedError);
    expect((error as LockedError).exitCode).toBe(2);
    expect((error as LockedError).message).toMatch(
      new RegExp(
        `^another run is using ${h.sandbox.url} with this API key: pid ${process.pid} on ${hostname()}, ` +
          `state dir ${h.tmp.path('state-a')}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(run [^)]+\\)\\.`,
      ),
    );
    expect((await first).summary.exitCode).toBe(0);
    const stats = h.sandbox.stats();
    expect(stats.duplicatePaymentDetails).toBe(0);
    // One bank account a payer: 60 rows, 60 accounts.
    expect(stats.paymentDetailsCreated).toBe(60);
    expect(existsSync(serviceLock())).toBe(false);
  });

  it('knows one service however its URL is spelled (case, localhost, default port, a trailing slash, `/x/..`)', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(ids(20)));
    const port = new URL(h.sandbox.url).port;
    for (const spelling of [`HTTP://LOCALHOST:${port}/`, `http://127.0.0.1:${port}/x/..`, `http://[::1]:${port}`]) {
      const first = h.run({ inputs: [input], stateDir: h.tmp.path('state-a') }, env());
      const second = failure(h.run({ inputs: [input], stateDir: h.tmp.path('state-b'), baseUrl: spelling }, env()));
      expect(await second, spelling).toBeInstanceOf(LockedError);
      expect((await first).summary.exitCode).toBe(0);
    }
    expect(h.sandbox.stats().duplicatePaymentDetails).toBe(0);
    expect(serviceIdentity('https://API.example.com:443/base/')).toBe(serviceIdentity('https://api.example.com/base'));
    expect(serviceIdentity('https://api.example.com/a')).not.toBe(serviceIdentity('https://api.example.com/b'));
  });

  it('never names the key: the lock is named by the host and a hash', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['k-1']));
    const first = h.run({ inputs: [input] }, env());
    const lock = serviceLock();
    expect(existsSync(lock)).toBe(true);
    expect(lock).not.toContain(API_KEY);
    await first;
  });

  it('does not hold back a run against another base URL', async () => {
    const other = await startSandbox({ port: 0, apiKey: API_KEY, kycAfter: 0 });
    try {
      const input = h.tmp.write('payers.csv', payersCsv(ids(20)));
      const [a, b] = await Promise.all([
        h.run({ inputs: [input], stateDir: h.tmp.path('state-a') }, env()),
        h.run({ inputs: [input], stateDir: h.tmp.path('state-b'), baseUrl: other.url }, env()),
      ]);
      expect([a.summary.exitCode, b.summary.exitCode]).toEqual([0, 0]);
      expect([h.sandbox.stats().paymentDetailsCreated, other.stats().paymentDetailsCreated]).toEqual([20, 20]);
    } finally {
      await other.close();
    }
  });

  it("turns a second run away from a journal another user's run holds (the journal's own lock)", async () => {
    const other = spawn('sleep', ['30']);
    try {
      const state = h.tmp.path('state');
      writeLock(join(state, 'locks', `${journalName(serviceIdentity(h.sandbox.url), API_KEY)}.lock`), other.pid!);
      const input = h.tmp.write('payers.csv', payersCsv(['l-1']));
      const error = await failure(h.run({ inputs: [input] }, env()));
      expect(error).toBeInstanceOf(LockedError);
      expect((error as LockedError).message).toContain(
        `another run is using ${state}: pid ${other.pid} on ${hostname()}, state dir /x, started 2026-11-21T10:00:00.000Z (run other-run)`,
      );
      expect(h.sandbox.stats().requests).toBe(0);
      // The service lock it took first is given back.
      expect(existsSync(serviceLock())).toBe(false);
    } finally {
      other.kill();
    }
  });

  it('takes over a lock left by a dead process, and releases its own at the end', async () => {
    const dead = spawnSync('true').pid;
    const lock = writeLock(serviceLock(), dead);
    const input = h.tmp.write('payers.csv', payersCsv(['l-1']));
    const { summary } = await h.run({ inputs: [input] }, env());
    expect(summary.exitCode).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('lets status read while a run holds the lock', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['s-1', 's-2']));
    await h.run({ inputs: [input] }, env());
    const other = spawn('sleep', ['30']);
    try {
      writeLock(serviceLock(), other.pid!);
      const err = memoryStream();
      const status = await runStatus(
        { inputs: [input], baseUrl: h.sandbox.url, stateDir: h.tmp.path('state'), rate: 0, out: h.tmp.path('st') },
        { cwd: h.tmp.dir, env: env(), stderr: err.stream },
      );
      expect(status.exitCode).toBe(0);
      expect(status.payers.total).toBe(2);
      expect(status.payers.unread).toBe(0);
    } finally {
      other.kill();
    }
  });
});
