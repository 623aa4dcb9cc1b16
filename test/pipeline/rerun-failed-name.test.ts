import { basename, dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('a failed file run again and failing again', () => {
  it('gives failed-<original>, in the new run folder, its rows still naming the original file and line', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['f-1', 'f-2'], { 'f-2': { country: 'ZZ' } }));
    const first = await h.run({ inputs: [input], command: 'validate' });
    const again = await h.run({ inputs: [first.summary.outputs.failed[0]!], command: 'validate' });
    const third = await h.run({ inputs: [again.summary.outputs.failed[0]!], command: 'validate' });
    for (const run of [first, again, third]) {
      expect(basename(run.summary.outputs.failed[0]!)).toBe('failed-payers.csv');
      expect(run.results.map((r) => [r.source, r.line, r.outcome])).toContainEqual(['payers.csv', '3', 'invalid']);
    }
    expect(new Set([first, again, third].map((run) => dirname(run.summary.outputs.failed[0]!))).size).toBe(3);
  });
});
