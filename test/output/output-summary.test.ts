import { describe, expect, it } from 'vitest';
import { exitCodeFor, formatSummary, type Summary } from '../../src/output/results.js';
import type { Outcome } from '../../src/core/types.js';

const rows = (over: Partial<Record<Outcome, number>> = {}) => ({
  ok: 0,
  waiting: 0,
  invalid: 0,
  failed: 0,
  skipped: 0,
  ...over,
});

describe('exitCodeFor', () => {
  it.each([
    [rows({ ok: 3 }), false, 0],
    [rows({ ok: 12, waiting: 8 }), false, 0],
    [rows({ waiting: 5 }), false, 0],
    [rows({ ok: 12, waiting: 8, invalid: 1 }), false, 1],
    [rows({ waiting: 8, failed: 1 }), false, 1],
    // Skipped without a stop: the rest of a trial run (--limit, --only), left as asked.
    [rows({ ok: 1, skipped: 1 }), false, 0],
    [rows({ ok: 1, skipped: 1, invalid: 1 }), false, 1],
    [rows({ ok: 2, waiting: 2 }), true, 3],
    [rows(), false, 0],
  ])('%j, aborted %s -> %i', (counts, aborted, code) => {
    expect(exitCodeFor(counts, aborted)).toBe(code);
  });
});

function summary(
  counts: Record<Outcome, number>,
  files: { failed?: string[]; pending?: string[] },
  over: Partial<Summary> = {},
): Summary {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    runId: 'r1',
    command: 'run',
    startedAt: '',
    endedAt: '',
    durationMs: 3200,
    sandbox: false,
    inputs: [],
    rows: { total, ...counts },
    requests: { total: 40, byStatus: { '200': 30, '500': 10 }, retries: 0 },
    warnings: [],
    exitCode: exitCodeFor(counts, over.aborted !== undefined),
    outputs: {
      dir: '/o',
      results: '/o/results.csv',
      failed: files.failed ?? [],
      pending: files.pending ?? [],
      summary: '/o/summary.json',
      log: '/o/run.log',
      report: '/o/report.html',
    },
    ...over,
  };
}

describe('formatSummary', () => {
  it('counts waiting apart, and says what happens next to each file: fix the failed one, run again for the pending one', () => {
    const text = formatSummary(
      summary(rows({ ok: 12, waiting: 8, invalid: 1 }), {
        failed: ['/o/failed-payers.csv'],
        pending: ['/o/pending-payers.csv'],
      }),
    );
    expect(text).toBe(
      [
        'payer-onboard run: 21 rows in 3.2 s: 12 ok, 8 waiting, 1 invalid, 0 failed, 0 skipped',
        '  requests: 40 (200: 30, 500: 10), retries: 0',
        '  results: /o/results.csv',
        '  report: /o/report.html',
        '  rows to fix (fix them, then run this file): /o/failed-payers.csv',
        '  waiting on the payers (KYC, agreement): run the same file again later, or let the inbox do it; pending rows: /o/pending-payers.csv',
        '  exit code 1',
        '',
      ].join('\n'),
    );
  });

  it('never asks anyone to fix pending rows, also when they were not attempted', () => {
    const aborted = { reason: 'api-down', message: 'the API is down' };
    const text = formatSummary(
      summary(rows({ ok: 2, waiting: 1, skipped: 4 }), { pending: ['/o/pending-payers.csv'] }, { aborted }),
    );
    expect(text).toContain('  ABORTED: the API is down\n');
    expect(text).toContain(
      '  waiting on the payers (KYC, agreement) or not attempted (the run stopped): run the same file again later, or let the inbox do it; pending rows: /o/pending-payers.csv\n',
    );
    expect(text).not.toMatch(/fix/i);
    expect(text).toMatch(/exit code 3\n$/);
  });

  it('a run where every row is ok or waiting exits 0 and names no file to fix', () => {
    const text = formatSummary(summary(rows({ ok: 3, waiting: 2 }), { pending: ['/o/pending-payers.csv'] }));
    expect(text).toMatch(/^payer-onboard run: 5 rows in 3\.2 s: 3 ok, 2 waiting, 0 invalid, 0 failed, 0 skipped\n/);
    expect(text).not.toMatch(/fix/i);
    expect(text).toMatch(/exit code 0\n$/);
  });
});
