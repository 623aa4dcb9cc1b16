import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockedError } from '../../src/core/errors.js';
import { journalName, serviceIdentity } from '../../src/journal/stateDir.js';
import { StoreLock } from '../../src/journal/StoreLock.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runStatus } from '../../src/status/runStatus.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';
import { BIN } from '../helpers/spawnBin.js';
import { crashAtCreate } from '../helpers/testStore.js';
import { waitFor } from '../helpers/waitFor.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** This test's own home: the default state dir lives under it, never in the user's. */
const env = () => ({ PAYER_API_KEY: API_KEY, HOME: h.tmp.path('home') });

/** The machine's abstract Unix sockets of payer-onboard for this test's sandbox (other tests hold their own). */
const lockNames = (url = h.sandbox.url) =>
  readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[7] ?? '')
    .filter((name) => name.startsWith('@payer-onboard/') && name.includes(`_${new URL(url).port}-`));

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

const ids = (n: number) => Array.from({ length: n }, (_, i) => `c-${String(i + 1).padStart(3, '0')}`);

/**
 * The bin, run as another user of this machine (`nobody`), with a home and state dir of its own, through `baseUrl`;
 * root can start a process as any user, and CI runs as root or with sudo.
 */
function binAsNobody(args: string[], baseUrl: string) {
  const home = h.tmp.path('nobody-home');
  mkdirSync(home, { recursive: true });
  chmodSync(home, 0o777);
  chmodSync(h.tmp.dir, 0o755);
  const command = [process.execPath, BIN, ...args, '--base-url', baseUrl, '--rate', '0', '--out', join(home, 'out')];
  const asRoot = process.getuid?.() === 0;
  const child = spawn(asRoot ? command[0]! : 'sudo', asRoot ? command.slice(1) : ['-n', '-u', 'nobody', ...command], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: join(home, 'state'), PAYER_API_KEY: API_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, done, stderr: () => stderr };
}

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
    expect(lockNames()).toEqual([]);
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
    await waitFor(() => lockNames().length > 0, 'the run to take its lock');
    expect(lockNames()).toEqual([`@payer-onboard/${journalName(serviceIdentity(h.sandbox.url), API_KEY)}`]);
    expect(lockNames()[0]).not.toContain(API_KEY);
    await first;
    expect(lockNames()).toEqual([]);
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

  it('holds for every user, home and state dir of the machine: a run as another user turns this one away', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const input = h.tmp.write('payers.csv', payersCsv(['u-1', 'u-2']));
      chmodSync(input, 0o644);
      crash.arm();
      const other = binAsNobody(['run', input, '--no-progress'], crash.url);
      // Its first create is held: it holds the service and key meanwhile.
      await crash.held();
      const error = await failure(
        h.run(
          { inputs: [input], baseUrl: crash.url, stateDir: h.tmp.path('root-state') },
          { ...env(), XDG_STATE_HOME: h.tmp.path('root-xdg') },
        ),
      );
      expect(error).toBeInstanceOf(LockedError);
      expect((error as LockedError).exitCode).toBe(2);
      expect((error as LockedError).message).toMatch(
        new RegExp(
          `^another run is using ${crash.url} with this API key: pid ${other.child.pid} on ${hostname()}, ` +
            `state dir ${h.tmp.path('nobody-home/state/payer-onboard')}, started `,
        ),
      );
      crash.release();
      expect(await other.done, other.stderr()).toBe(0);
      expect(h.sandbox.stats()).toMatchObject({
        payersCreated: 2,
        paymentDetailsCreated: 2,
        duplicatePaymentDetails: 0,
      });
    } finally {
      await crash.close();
    }
  });

  it('is freed by the kernel when its process is killed: the next run takes it at once', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const input = h.tmp.write('payers.csv', payersCsv(['d-1']));
      crash.arm();
      const killed = spawn(
        process.execPath,
        [BIN, 'run', input, '--base-url', crash.url, '--rate', '0', '--no-progress'],
        {
          cwd: h.tmp.dir,
          env: { PATH: process.env.PATH, ...env() },
          stdio: 'ignore',
        },
      );
      await crash.held();
      expect(lockNames(crash.url)).toHaveLength(1);
      killed.kill('SIGKILL');
      await new Promise((resolve) => killed.on('close', resolve));
      expect(lockNames(crash.url)).toEqual([]);
      crash.release();
      const { summary } = await h.run({ inputs: [input], baseUrl: crash.url }, env());
      expect(summary.exitCode).toBe(0);
      expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 1, duplicatePaymentDetails: 0 });
    } finally {
      await crash.close();
    }
  });

  it('lets status read while a run holds the lock', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const input = h.tmp.write('payers.csv', payersCsv(['s-1', 's-2']));
      await h.run({ inputs: [input], baseUrl: crash.url }, env());
      const more = h.tmp.write('more.csv', payersCsv(['s-3']));
      crash.arm();
      const running = h.run({ inputs: [more], baseUrl: crash.url }, env());
      await crash.held();
      const err = memoryStream();
      const status = await runStatus(
        { inputs: [input], baseUrl: crash.url, stateDir: h.tmp.path('state'), rate: 0, out: h.tmp.path('st') },
        { cwd: h.tmp.dir, env: { ...h.store.env, ...env() }, stderr: err.stream },
      );
      expect(status.exitCode).toBe(0);
      expect(status.payers.total).toBe(2);
      expect(status.payers.unread).toBe(0);
      crash.release();
      expect((await running).summary.exitCode).toBe(0);
    } finally {
      await crash.close();
    }
  });

  it('holds the state dir for whoever shares it (a container has a network, and a machine lock, of its own)', async () => {
    // Another namespace's run on this state dir: its lock of the store, as `run` takes it there.
    const service = journalName(serviceIdentity(h.sandbox.url), API_KEY);
    const other = {
      pid: 4242,
      host: 'container-7',
      startedAt: '2026-12-01T09:00:00.000Z',
      runId: 'r-7',
      stateDir: '/state',
    };
    const lock = StoreLock.acquire(h.tmp.path('state'), service, other, 'that service');
    for (const file of [`${service}.lock`, `${service}.holder.json`])
      expect(statSync(h.tmp.path(`state/locks/${file}`)).mode & 0o777).toBe(0o600);
    try {
      const input = h.tmp.write('payers.csv', payersCsv(['ns-1']));
      const error = await failure(h.run({ inputs: [input] }, env()));
      expect(error).toBeInstanceOf(LockedError);
      expect((error as LockedError).message).toBe(
        `another run is using ${h.sandbox.url} with this API key: pid 4242 on container-7, state dir /state, ` +
          'started 2026-12-01T09:00:00.000Z (run r-7). Wait for it to finish.',
      );
      expect(h.sandbox.stats().requests).toBe(0);
      // Its machine lock was given back: with the store free, the next run goes.
      expect(lockNames()).toEqual([]);
    } finally {
      lock.release();
    }
    const { summary } = await h.run({ inputs: [h.tmp.path('payers.csv')] }, env());
    expect(summary.exitCode).toBe(0);
  });

  it('survives whoever connects to its lock and goes away at once (any process of the machine may)', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const input = h.tmp.write('payers.csv', payersCsv(['poke-1']));
      crash.arm();
      const running = h.run({ inputs: [input], baseUrl: crash.url }, env());
      await crash.held();
      const [name] = lockNames(crash.url);
      await Promise.all(
        Array.from(
          { length: 200 },
          () =>
            new Promise<void>((resolve) => {
              const socket = createConnection(`\0${name!.slice(1)}`);
              socket.on('connect', () => socket.destroy());
              socket.on('error', () => resolve());
              socket.on('close', () => resolve());
            }),
        ),
      );
      crash.release();
      expect((await running).summary.exitCode).toBe(0);
    } finally {
      await crash.close();
    }
  });
});
