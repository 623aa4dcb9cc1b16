import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RowFiles, RowFileSet } from '../../src/output/RowFiles.js';
import { OUTCOMES, type Outcome } from '../../src/core/types.js';
import { tempDir } from '../helpers/tempDir.js';
import { readWorkbook } from '../helpers/xlsxFixtures.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

/** One row per outcome, its id naming the outcome, so each file's content says where every row went. */
const rowsByOutcome = (format: 'csv' | 'jsonl') =>
  OUTCOMES.map((outcome) => ({
    outcome,
    original: format === 'csv' ? [`id-${outcome}`, 'x'] : JSON.stringify({ clientUserId: `id-${outcome}` }),
    errors: outcome === 'ok' ? [] : [{ message: `why ${outcome}` }],
    completedSteps: outcome === 'waiting' ? 'compliance@3f9a1c;agreement;from=payers.csv:4' : '',
  }));

const idsIn = (text: string) => [...text.matchAll(/id-([a-z]+)/g)].map((m) => m[1]);

describe('which file a row goes to', () => {
  it('sends rows a person must act on to failed, rows a later run finishes to pending, ok rows nowhere', async () => {
    const files = new RowFiles(tmp.dir, { path: tmp.path('payers.csv'), name: 'payers.csv', format: 'csv' }, ['Id']);
    for (const outcome of OUTCOMES)
      await files.write({ outcome, original: [`id-${outcome}`], errors: [], completedSteps: '' });
    await files.close();
    const failed = idsIn(readFileSync(tmp.path('failed-payers.csv'), 'utf8'));
    const pending = idsIn(readFileSync(tmp.path('pending-payers.csv'), 'utf8'));
    const kinds = Object.fromEntries(
      OUTCOMES.map((o) => [o, failed.includes(o) ? 'failed' : pending.includes(o) ? 'pending' : undefined]),
    );
    expect(kinds).toEqual({
      ok: undefined,
      waiting: 'pending',
      invalid: 'failed',
      failed: 'failed',
      skipped: 'pending',
    });
    expect([...failed, ...pending].sort()).toEqual(OUTCOMES.filter((o) => o !== 'ok').sort());
    expect(readdirSync(tmp.dir).sort()).toEqual(['failed-payers.csv', 'pending-payers.csv']);
  });
});

describe('RowFiles routes every row not ok to exactly one file', () => {
  it('CSV: the input dialect, header and cells in both files, plus error and completedSteps', async () => {
    const files = new RowFiles(
      tmp.dir,
      { path: tmp.path('payers.csv'), name: 'payers.csv', format: 'csv' },
      ['Id', 'Note', 'error', 'completedSteps'],
      { delimiter: ';', bom: false, eol: '\n' },
    );
    for (const row of rowsByOutcome('csv')) await files.write(row);
    await files.close();

    expect(files.written()).toEqual({ failed: tmp.path('failed-payers.csv'), pending: tmp.path('pending-payers.csv') });
    expect(files.count).toEqual({ failed: 2, pending: 2 });
    expect(readFileSync(tmp.path('failed-payers.csv'), 'utf8')).toBe(
      'Id;Note;error;completedSteps\nid-invalid;x;why invalid;\nid-failed;x;why failed;\n',
    );
    expect(readFileSync(tmp.path('pending-payers.csv'), 'utf8')).toBe(
      'Id;Note;error;completedSteps\nid-waiting;x;why waiting;"compliance@3f9a1c;agreement;from=payers.csv:4"\nid-skipped;x;why skipped;\n',
    );
    for (const kind of ['failed', 'pending']) expect(statSync(tmp.path(`${kind}-payers.csv`)).mode & 0o777).toBe(0o600);
  });

  it("CSV: a cell a spreadsheet would run as a formula is written with a leading ', header and trailing cells too", async () => {
    const files = new RowFiles(
      tmp.dir,
      { path: tmp.path('payers.tsv'), name: 'payers.tsv', format: 'tsv' },
      ['Id', '=Note', 'Phone', 'Amount', 'Tab'],
      { delimiter: '\t', bom: false, eol: '\r\n' },
    );
    await files.write({
      outcome: 'invalid',
      original: ["=cmd|' /C calc'!A0", '@x', '+12175550100', '-5', '\tx'],
      errors: [{ message: '=bad' }],
      completedSteps: '-x',
    });
    await files.close();
    expect(readFileSync(tmp.path('failed-payers.tsv'), 'utf8')).toBe(
      "Id\t'=Note\tPhone\tAmount\tTab\terror\tcompletedSteps\r\n" +
        "'=cmd|' /C calc'!A0\t'@x\t+12175550100\t-5\t\"'\tx\"\t'=bad\t'-x\r\n",
    );
  });

  it('JSONL: each line to its file, as the same object plus error and completedSteps', async () => {
    const files = new RowFiles(tmp.dir, { path: tmp.path('p.jsonl'), name: 'p.jsonl', format: 'jsonl' });
    for (const row of rowsByOutcome('jsonl')) await files.write(row);
    await files.close();
    expect(idsIn(readFileSync(tmp.path('failed-p.jsonl'), 'utf8'))).toEqual(['invalid', 'failed']);
    const pending = readFileSync(tmp.path('pending-p.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(pending).toEqual([
      {
        clientUserId: 'id-waiting',
        error: 'why waiting',
        completedSteps: 'compliance@3f9a1c;agreement;from=payers.csv:4',
      },
      { clientUserId: 'id-skipped', error: 'why skipped', completedSteps: '' },
    ]);
  });

  it('xlsx: a failed and a pending workbook, each with the sheets that got rows in that kind', async () => {
    const set = new RowFileSet();
    const input = tmp.path('payers.xlsx');
    const header = ['clientUserId', 'Note'];
    const payers = new RowFiles(
      tmp.dir,
      { path: input, name: 'payers.xlsx', format: 'xlsx', sheet: 'Payers' },
      header,
      undefined,
      set,
    );
    const bank = new RowFiles(
      tmp.dir,
      { path: input, name: 'payers.xlsx[Bank details]', format: 'xlsx', sheet: 'Bank details' },
      header,
      undefined,
      set,
    );
    const write = (files: RowFiles, outcome: Outcome, id: string) =>
      files.write({
        outcome,
        // A text cell is never run as a formula: the workbook keeps it as it was.
        original: [id, '=x'],
        errors: [{ message: `why ${outcome}` }],
        completedSteps: 'compliance',
      });
    await write(payers, 'invalid', 'p-1');
    await write(payers, 'waiting', 'p-2');
    await write(bank, 'waiting', 'b-1');
    await write(bank, 'ok', 'b-2');
    await payers.close();
    await bank.close();
    await set.close();

    expect(payers.written()).toEqual({
      failed: tmp.path('failed-payers.xlsx'),
      pending: tmp.path('pending-payers.xlsx'),
    });
    expect(bank.written()).toEqual({ pending: tmp.path('pending-payers.xlsx') });
    const sheets = async (path: string) =>
      (await readWorkbook(path)).worksheets.map((sheet) => ({
        name: sheet.name,
        rows: (sheet.getSheetValues() as unknown[][]).filter(Boolean).map((r) => r.slice(1)),
      }));
    expect(await sheets(tmp.path('failed-payers.xlsx'))).toEqual([
      {
        name: 'Payers',
        rows: [
          ['clientUserId', 'Note', 'error', 'completedSteps'],
          ['p-1', '=x', 'why invalid', 'compliance'],
        ],
      },
    ]);
    expect(await sheets(tmp.path('pending-payers.xlsx'))).toEqual([
      {
        name: 'Payers',
        rows: [
          ['clientUserId', 'Note', 'error', 'completedSteps'],
          ['p-2', '=x', 'why waiting', 'compliance'],
        ],
      },
      {
        name: 'Bank details',
        rows: [
          ['clientUserId', 'Note', 'error', 'completedSteps'],
          ['b-1', '=x', 'why waiting', 'compliance'],
        ],
      },
    ]);
  });

  it('an input whose rows are all ok leaves no file behind', async () => {
    const files = new RowFiles(tmp.dir, { path: tmp.path('payers.csv'), name: 'payers.csv', format: 'csv' }, ['Id']);
    await files.write({ outcome: 'ok', original: ['u1'], errors: [], completedSteps: '' });
    await files.close();
    expect(files.written()).toEqual({});
    expect(readdirSync(tmp.dir)).toEqual([]);
    expect(existsSync(tmp.path('failed-payers.csv'))).toBe(false);
  });
});
