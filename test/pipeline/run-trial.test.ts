import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveRunOptions } from '../../src/options/resolve.js';
import { harness, payersCsv } from '../helpers/runHarness.js';

// A finance team's first run is a few rows, or one payer: --limit and --only send those, and leave the rest of the
// file, skipped, for the next run.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const IDS = ['t-1', 't-2', 't-3', 't-4', 't-5'];
const PAST_LIMIT = 'not attempted: past the first 2 rows of the file (--limit 2); a run without --limit sends it';
const NOT_NAMED = 'not attempted: not one of the payers --only names; a run without --only sends it';

describe('a trial run', () => {
  it('--limit N sends the first N data rows; the rest are skipped, pending, and sent by the next run', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(IDS));
    const trial = await h.run({ inputs: [input], limit: 2 });
    expect(trial.results.map((r) => [r.clientUserId, r.outcome, r.error])).toEqual([
      ['t-1', 'ok', ''],
      ['t-2', 'ok', ''],
      ['t-3', 'skipped', PAST_LIMIT],
      ['t-4', 'skipped', PAST_LIMIT],
      ['t-5', 'skipped', PAST_LIMIT],
    ]);
    expect(trial.summary.exitCode).toBe(0);
    expect(h.sandbox.stats().payersCreated).toBe(2);
    expect(trial.summary.outputs.pending).toHaveLength(1);
    expect(readFileSync(trial.summary.outputs.pending[0]!, 'utf8').trim().split('\n')).toHaveLength(4);
    expect(trial.stderr).toContain(
      '  not attempted (a trial run: --limit, --only): run the same file again later, or let the inbox do it; pending rows: ',
    );

    const rest = await h.run({ inputs: [input] });
    expect(rest.results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 5, duplicatePayers: 0 });
  });

  it('--only sends the rows of the payers it names, in any case and spacing', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(IDS));
    const trial = await h.run({ inputs: [input], only: ' T-2, t-4 ' });
    expect(trial.results.map((r) => [r.clientUserId, r.outcome, r.error])).toEqual([
      ['t-1', 'skipped', NOT_NAMED],
      ['t-2', 'ok', ''],
      ['t-3', 'skipped', NOT_NAMED],
      ['t-4', 'ok', ''],
      ['t-5', 'skipped', NOT_NAMED],
    ]);
    expect(trial.summary.exitCode).toBe(0);
    expect(h.sandbox.stats().payersCreated).toBe(2);
  });

  it('--only names an id no row has: said at the end, not taken for a trial that went well', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(IDS));
    const trial = await h.run({ inputs: [input], only: 't-2,t-9,T-8' });
    expect(trial.results.map((r) => r.outcome)).toEqual(['skipped', 'ok', 'skipped', 'skipped', 'skipped']);
    expect(trial.stderr).toContain(
      'warning: --only: no row of the inputs has clientUserId "t-9", "T-8": nothing was sent for them\n',
    );
    expect(h.sandbox.stats().payersCreated).toBe(1);
  });

  it('an invalid row among those tried still counts: exit 1', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(IDS, { 't-1': { email: 'nope' } }));
    const trial = await h.run({ inputs: [input], limit: 1 });
    expect(trial.results.map((r) => r.outcome)).toEqual(['invalid', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(trial.summary.exitCode).toBe(1);
  });

  it.each([
    [{ limit: 0 }, '--limit: must be at least 1'],
    [{ limit: 1.5 }, '--limit: must be a whole number'],
    [{ only: ' , ' }, '--only: give at least one clientUserId, e.g. --only payer-0001,payer-0002'],
  ])('%j is refused: %s', (given, message) => {
    expect(() => resolveRunOptions({ inputs: ['p.csv'], ...given })).toThrow(message);
  });
});
