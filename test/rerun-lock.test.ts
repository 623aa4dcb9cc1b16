import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockedError } from '../src/errors.js';
import { harness, payersCsv } from './helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

function writeLock(pid: number) {
  const state = h.tmp.path('state');
  mkdirSync(state, { recursive: true });
  writeFileSync(
    join(state, 'lock'),
    JSON.stringify({ pid, host: hostname(), startedAt: '2026-11-21T10:00:00.000Z', runId: 'other-run' }),
  );
  return join(state, 'lock');
}

describe('one run at a time per state dir', () => {
  it('turns a second run away at once (exit 2) naming the other run, sending nothing', async () => {
    const other = spawn('sleep', ['30']);
    try {
      writeLock(other.pid!);
      const input = h.tmp.write('payers.csv', payersCsv(['l-1']));
      const error = await h.run({ inputs: [input] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LockedError);
      expect((error as LockedError).exitCode).toBe(2);
      expect((error as LockedError).message).toContain(
        `another run is using ${h.tmp.path('state')}: pid ${other.pid} on ${hostname()}, started 2026-11-21T10:00:00.000Z (run other-run)`,
      );
      expect(h.sandbox.stats().requests).toBe(0);
    } finally {
      other.kill();
    }
  });

  it('takes over a lock left by a dead process, and releases its own at the end', async () => {
    const dead = spawnSync('true').pid;
    const lock = writeLock(dead);
    const input = h.tmp.write('payers.csv', payersCsv(['l-1']));
    const { summary } = await h.run({ inputs: [input] });
    expect(summary.exitCode).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });
});
