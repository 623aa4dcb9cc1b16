import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, harness, payersCsv, readResults } from '../helpers/runHarness.js';
import { BIN } from '../helpers/spawnBin.js';

// A full disk, made real: the shell's file-size limit (`ulimit -f`, in KiB) makes write(2) fail with EFBIG once a
// file would grow past it, as ENOSPC does when the disk is full. Node ignores SIGXFSZ, so the error reaches the tool.
const LIMIT_KIB = 64;

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

function runLimited(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('bash', ['-c', `ulimit -f ${LIMIT_KIB}; exec "$0" "$@"`, process.execPath, BIN, ...args], {
    cwd: h.tmp.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYER_API_KEY: API_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/**
 * Fills the log of the store in `stateDir` until it has room for the mark a run leaves as it opens the journal (the
 * first write of a connection is two frames: the page changed, and the database's first page) and no more: the run's
 * next write cannot be made. A reader kept on the log's start (returned, to be
 * closed) stops the log from being started again from its beginning, as SQLite does once nobody reads it.
 */
function fillStoreLog(stateDir: string): DatabaseSync {
  const file = join(stateDir, STORE_FILE);
  const reader = new DatabaseSync(file);
  reader.exec('BEGIN');
  reader.prepare('SELECT COUNT(*) FROM journal_settings').get();
  const writer = new DatabaseSync(file);
  const frame = 24 + Number((writer.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
  const walSize = () => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
  const fill = writer.prepare(
    "INSERT INTO journal_settings (service, name, value) VALUES ('filler', 'filler', ?) " +
      'ON CONFLICT (service, name) DO UPDATE SET value = excluded.value',
  );
  // After its first, each of these transactions changes one page: one frame of the log each.
  for (let i = 0; walSize() + 3 * frame <= LIMIT_KIB * 1024; i++) fill.run(String(i));
  writer.close();
  return reader;
}

describe('a write that fails stops the run', () => {
  it('the journal: nothing more is sent, every row not done is skipped, exit 3 naming the journal', async () => {
    const first = await h.run({ inputs: [h.tmp.write('first.csv', payersCsv(['p-1']))] });
    expect(first.summary.exitCode).toBe(0);
    // Fill the store to just under the limit: the run opens it, and its next write cannot be made.
    const state = h.tmp.path('state');
    const reader = fillStoreLog(state);
    const accountsBefore = h.sandbox.stats().byRoute['payment-details'] ?? 0;

    const input = h.tmp.write('payers.csv', payersCsv(['p-2', 'p-3', 'p-4']));
    const out = h.tmp.path('out-full');
    const { code, stderr } = await runLimited([
      'run',
      input,
      '--base-url',
      h.sandbox.url,
      '--state-dir',
      h.tmp.path('state'),
      '--out',
      out,
      '--rate',
      '0',
      '--no-progress',
    ]);

    reader.close();
    expect(code, stderr).toBe(3);
    expect(stderr).toContain(`stopped: the journal in ${join(state, STORE_FILE)} cannot be written (`);
    // A bank account it could not record first never went out; the rows are left for the next run.
    expect(h.sandbox.stats().byRoute['payment-details'] ?? 0).toBe(accountsBefore);
    expect(readResults(join(out, 'results.csv')).map((r) => r.outcome)).toEqual(['skipped', 'skipped', 'skipped']);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.aborted.reason).toBe('write-failed');
    expect(summary.exitCode).toBe(3);
  });

  it('the results: validate exits 3 saying what could not be written, summary.json still written', async () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `p-${i}`);
    const input = h.tmp.write('payers.csv', payersCsv(ids));
    const out = h.tmp.path('out-full');
    const { code, stderr } = await runLimited([
      'validate',
      input,
      '--out',
      out,
      '--log-level',
      'error',
      '--no-progress',
    ]);

    expect(code).toBe(3);
    expect(stderr).toContain(`stopped: the results in ${out} cannot be written (EFBIG`);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.aborted.reason).toBe('write-failed');
  });
});
