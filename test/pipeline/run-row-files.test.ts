import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, PAYER_HEADER, payerRow, payersCsv, readBackPayerRows } from '../helpers/runHarness.js';

// A run against the real-like sandbox (bank accounts refused until KYC is approved): rows to fix go to the failed
// file, rows waiting on the payer to the pending file, and either file fed back keeps its rows' original place.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const rowsOf = (path: string) => parse(readFileSync(path, 'utf8'), { columns: true }) as Array<Record<string, string>>;

describe('failed and pending files of a run', () => {
  it('split the rows not ok by who finishes them; waiting rows alone exit 0', async () => {
    h = await harness({ kycAfter: undefined });
    const input = h.tmp.write('payers.csv', payersCsv(['w-1', 'w-2', 'w-3'], { 'w-2': { email: 'not-an-email' } }));
    const { summary, results, stderr } = await h.run({ inputs: [input] });

    expect(results.map((r) => [r.source, r.line, r.outcome])).toEqual([
      ['payers.csv', '2', 'waiting'],
      ['payers.csv', '3', 'invalid'],
      ['payers.csv', '4', 'waiting'],
    ]);
    expect(summary.exitCode).toBe(1);
    expect(summary.outputs.failed.map((p) => basename(p))).toEqual(['failed-payers.csv']);
    expect(summary.outputs.pending.map((p) => basename(p))).toEqual(['pending-payers.csv']);
    expect(rowsOf(summary.outputs.failed[0]!).map((r) => r.clientUserId)).toEqual(['w-2']);

    const pending = rowsOf(summary.outputs.pending[0]!);
    expect(pending.map((r) => r.clientUserId)).toEqual(['w-1', 'w-3']);
    expect(pending[0]!.completedSteps).toMatch(/^compliance@[0-9a-f]{6};agreement;from=payers\.csv:2$/);
    // As the next run reads the file: the steps done and the row's original place.
    expect((await readBackPayerRows(summary.outputs.pending[0]!))[1]).toMatchObject({
      ok: true,
      clientUserId: 'w-3',
      completedSteps: ['compliance', 'agreement'],
      origin: { source: 'payers.csv', line: 4 },
    });
    expect(stderr).toContain(
      `  waiting on the payers (KYC, agreement): run the same file again later, or let the inbox do it; pending rows: ${summary.outputs.pending[0]}\n`,
    );

    const fixed = h.tmp.write('only-waiting.csv', payersCsv(['w-4']));
    const waitingOnly = await h.run({ inputs: [fixed] });
    expect(waitingOnly.results.map((r) => r.outcome)).toEqual(['waiting']);
    expect(waitingOnly.summary.exitCode).toBe(0);
    expect(waitingOnly.summary.outputs.failed).toEqual([]);
  });

  it('a pending file fed back on another machine finishes its rows under their original source and line, without stacking prefixes', async () => {
    h = await harness({ kycAfter: undefined });
    const input = h.tmp.write('payers.csv', payersCsv(['p-1', 'p-2', 'p-3']));
    const first = await h.run({ inputs: [input] });
    const pendingFile = first.summary.outputs.pending[0]!;

    h.sandbox.setKyc('p-1', 'approved');
    h.sandbox.setKyc('p-3', 'approved');
    // A new state dir: only the pending file's completedSteps know what was done.
    const second = await h.run({ inputs: [pendingFile], stateDir: h.tmp.path('other-machine') });
    expect(second.results.map((r) => [r.source, r.line, r.clientUserId, r.outcome])).toEqual([
      ['payers.csv', '2', 'p-1', 'ok'],
      ['payers.csv', '3', 'p-2', 'waiting'],
      ['payers.csv', '4', 'p-3', 'ok'],
    ]);
    expect(second.summary.outputs.pending.map((p) => basename(p))).toEqual(['pending-payers.csv']);
    expect(rowsOf(second.summary.outputs.pending[0]!)[0]!.completedSteps).toMatch(/;from=payers\.csv:3$/);
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 3, paymentDetailsCreated: 2, duplicatePaymentDetails: 0 });
  });

  it("a pending file's formula cell is guarded, and fed back reaches the service as the input had it", async () => {
    h = await harness({ kycAfter: undefined });
    const formula = '@SUM(A1:A9)';
    const input = h.tmp.write('payers.csv', `${PAYER_HEADER},addressLine2\n${payerRow('g-1')},${formula}\n`);
    const first = await h.run({ inputs: [input] });
    const pendingFile = first.summary.outputs.pending[0]!;
    expect(rowsOf(pendingFile)[0]).toMatchObject({ addressLine2: `'${formula}`, phone: '+12175550100' });

    h.sandbox.setKyc('g-1', 'approved');
    // No journal: were the `'` kept, the compliance digest would call the payer's data changed and fail the row.
    const second = await h.run({ inputs: [pendingFile], stateDir: h.tmp.path('other-machine') });
    expect(second.results.map((r) => [r.clientUserId, r.outcome, r.error])).toEqual([['g-1', 'ok', '']]);
    expect(h.sandbox.payer('g-1')!.paymentDetails[0]!.request).toMatchObject({ addressLine2: formula });
  });
});
