import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

function findJournal(dir: string): string {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = findJournal(path);
      if (found) return found;
    } else if (name === 'journal.jsonl') return path;
  }
  return '';
}

describe('a write that fails stops the run', () => {
  it('the journal: nothing more is sent, every row not done is skipped, exit 3 naming the journal', async () => {
    const first = await h.run({ inputs: [h.tmp.write('first.csv', payersCsv(['p-1']))] });
    expect(first.summary.exitCode).toBe(0);
    // Fill the journal with well-formed lines to just under the limit: its next line cannot be written.
    const journal = findJournal(h.tmp.path('state'));
    const line = (i: number) => `${JSON.stringify({ k: i.toString(16).padStart(32, '0'), s: 'none' })}\n`;
    const room = LIMIT_KIB * 1024 - statSync(journal).size;
    appendFileSync(journal, Array.from({ length: Math.floor(room / line(0).length) }, (_, i) => line(i)).join(''));
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

    expect(code).toBe(3);
    expect(stderr).toContain(`stopped: the journal ${journal} cannot be written (EFBIG`);
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
