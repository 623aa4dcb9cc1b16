import { mkdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RowFiles, RowFileSet } from '../../src/output/RowFiles.js';
import type { Outcome } from '../../src/core/types.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
let out: string;
beforeEach(() => {
  tmp = tempDir();
  out = tmp.path('out');
  mkdirSync(out);
});
afterEach(() => {
  tmp.remove();
});

const csvInput = (name: string) => ({ path: tmp.path(name), name, format: 'csv' as const });
const row = (outcome: Outcome, id: string) => ({
  outcome,
  original: [id],
  errors: [{ message: 'e' }],
  completedSteps: '',
});

describe('the name of the original input, without the prefixes earlier runs put on it', () => {
  it.each([
    ['payers.csv', 'payers.csv'],
    ['failed-payers.csv', 'payers.csv'],
    ['pending-payers.csv', 'payers.csv'],
    ['failed-pending-failed-payers.csv', 'payers.csv'],
    ['Failed-PENDING-payers.xlsx[Bank details]', 'payers.xlsx[Bank details]'],
    ['payers-failed-2024.csv', 'payers-failed-2024.csv'],
    ['failed-', 'failed-'],
  ])('%s -> failed-%s, pending-%s', async (name, original) => {
    const files = new RowFiles(out, csvInput(name), ['Id']);
    await files.write(row('invalid', 'a'));
    await files.write(row('skipped', 'b'));
    await files.close();
    expect(files.written()).toEqual({
      failed: tmp.path(`out/failed-${original}`),
      pending: tmp.path(`out/pending-${original}`),
    });
  });

  it("an .xlsx input's files are named after its workbook, not its sheet", async () => {
    const input = { path: tmp.path('Failed-PENDING-payers.xlsx'), format: 'xlsx' as const };
    const files = new RowFiles(
      out,
      { ...input, name: 'Failed-PENDING-payers.xlsx[Bank details]', sheet: 'Bank details' },
      ['Id'],
    );
    await files.write(row('failed', 'a'));
    await files.close();
    expect(files.written()).toEqual({ failed: tmp.path('out/failed-payers.xlsx') });
  });
});

describe('failed and pending files are named after the original input', () => {
  it('a re-fed failed or pending file, even one of an older version, gives failed-<original> and pending-<original>', async () => {
    const files = new RowFiles(out, csvInput('failed-pending-failed-payers.csv'), ['Id']);
    await files.write(row('failed', 'a'));
    await files.write(row('waiting', 'b'));
    await files.close();
    expect(files.written()).toEqual({
      failed: tmp.path('out/failed-payers.csv'),
      pending: tmp.path('out/pending-payers.csv'),
    });
  });

  it('two inputs of one original name in one run never share a file', async () => {
    const set = new RowFileSet();
    const first = new RowFiles(out, csvInput('payers.csv'), ['Id'], undefined, set);
    const second = new RowFiles(out, csvInput('failed-payers.csv'), ['Id'], undefined, set);
    await first.write(row('invalid', 'from-first'));
    await second.write(row('invalid', 'from-second'));
    await first.close();
    await second.close();
    expect(first.written().failed).toBe(tmp.path('out/failed-payers.csv'));
    expect(second.written().failed).toBe(tmp.path('out/failed-payers-2.csv'));
    expect(readFileSync(tmp.path('out/failed-payers.csv'), 'utf8')).toContain('from-first');
    expect(readFileSync(tmp.path('out/failed-payers-2.csv'), 'utf8')).toContain('from-second');
  });

  it('never takes the name of a file the run reads: the input given with --out beside it stays as it was', async () => {
    const input = tmp.write('failed-payers.csv', 'Id,error,completedSteps\nkeep-me,old,\n');
    const later = tmp.write('pending-payers.csv', 'Id\nkeep-me-too\n');
    const set = new RowFileSet([input, later]);
    const files = new RowFiles(
      tmp.dir,
      csvInput('failed-payers.csv'),
      ['Id', 'error', 'completedSteps'],
      undefined,
      set,
    );
    await files.write(row('failed', 'new'));
    await files.write(row('waiting', 'new'));
    await files.close();
    expect(files.written()).toEqual({
      failed: tmp.path('failed-payers-2.csv'),
      pending: tmp.path('pending-payers-2.csv'),
    });
    expect(readFileSync(input, 'utf8')).toBe('Id,error,completedSteps\nkeep-me,old,\n');
    expect(readFileSync(later, 'utf8')).toBe('Id\nkeep-me-too\n');
  });
});
