import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';

// /dev/full takes every open and fails every write with ENOSPC: a full disk without root, a tmpfs or a ulimit.
const FULL = '/dev/full';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness({ latencyMs: 20 });
});
afterEach(async () => {
  await h.close();
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => `w-${i + 1}`);

describe('an output that cannot be written', () => {
  it('a log on a full disk: the run stops, says which file and why in one line, exits 3', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(ids(40)));
    const mode = statSync(FULL).mode;
    const { summary, stderr, results } = await h.run({ inputs: [input], logFile: FULL, concurrency: 2 });

    expect(summary.exitCode).toBe(3);
    expect(summary.aborted?.reason).toBe('write-failed');
    const lines = stderr.split('\n').filter((line) => line.includes(`${FULL} cannot be written`));
    expect(lines).toEqual([
      `  ABORTED: stopped: ${FULL} cannot be written (ENOSPC: no space left on device, write); nothing more is sent`,
    ]);
    // Stopped early: the rows after the failure were never sent, and every row is still in the results.
    expect(results).toHaveLength(40);
    expect(results.some((row) => row.outcome === 'skipped')).toBe(true);
    const written = JSON.parse(readFileSync(summary.outputs.summary, 'utf8'));
    expect(written.aborted.reason).toBe('write-failed');
    // A device given as the log is the system's: its mode is left as it was (a log file is made 0600).
    expect(statSync(FULL).mode).toBe(mode);
  });

  it('an --out under a file: exit 2 naming the folder, nothing sent', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(ids(3)));
    const out = join(h.tmp.write('not-a-folder', 'x'), 'out');
    const running = h.run({ inputs: [input], out });

    await expect(running).rejects.toThrow(ConfigError);
    await expect(running).rejects.toThrow(`the output folder ${out} cannot be written (ENOTDIR): choose another --out`);
    await expect(running).rejects.toMatchObject({ exitCode: 2 });
    expect(h.sandbox.stats().requests).toBe(0);
  });

  // As root a mode of 0555 stops nothing: the case above stands for it there.
  it.skipIf(process.getuid?.() === 0)('a read-only --out: exit 2 naming the folder, nothing sent', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(ids(3)));
    const out = h.tmp.path('read-only');
    mkdirSync(out);
    chmodSync(out, 0o555);
    const running = h.run({ inputs: [input], out });

    await expect(running).rejects.toThrow(`the output folder ${out} cannot be written (EACCES): choose another --out`);
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('the bin with its log on a full disk ends with exit 3 every time, one line on stderr, no stack trace', async () => {
    h.tmp.write('payers.csv', payersCsv(ids(30)));
    for (let i = 0; i < 3; i++) {
      const args = ['run', 'payers.csv', '--base-url', h.sandbox.url, '--rate', '0', '--no-progress'];
      const flags = ['--out', `out-${i}`, '--state-dir', `state-${i}`, '--log-file', FULL];
      const done = await spawnBin([...args, ...flags], { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } }).done;

      expect(done.code).toBe(3);
      expect(done.stderr).toContain(`stopped: ${FULL} cannot be written (ENOSPC`);
      expect(done.stderr).not.toMatch(/SonicBoom|\n\s+at /);
    }
  });
});
