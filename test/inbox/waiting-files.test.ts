import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWaiting, writeWaiting } from '../../src/inbox/waitingFiles.js';
import { payerKeyOf } from '../../src/journal/RowJournal.js';
import { PAYER_HEADER, payerRow } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { PAYER_COLUMNS, payerCells, payerRows, writeWorkbook } from '../helpers/xlsxFixtures.js';
import { writeWithExceljs } from '../helpers/xlsxProducers.js';

// Rows kept waiting are run again from the store as a file of their own: written back, they must read as they were.

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

/** Reads a file, writes its rows back (some of them, or all) in its format, and reads what was written. */
async function roundTrip(path: string, name: string, pick = (_seq: number) => true) {
  const read = await readWaiting(path, {});
  const rows = read.rows.map((row, i) => ({ ...row, seq: i + 1 })).filter((row) => pick(row.seq));
  const dir = tmp.path(`back-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir);
  const file = { id: `x/${name}`, name, format: read.format, shape: read.shape, addedAt: new Date().toISOString() };
  const written = await writeWaiting(dir, file, rows);
  return { read, rows, written, again: await readWaiting(written, {}) };
}

/**
 * What must survive: each row's part, payer and steps, and its own cells (the file's `error` and `completedSteps`
 * columns are the run's to write: the steps come back in theirs, the error cell empty).
 */
function sameRows(
  shape: string,
  rows: ReadonlyArray<{ part: number; payerKey: string; original: string; completedSteps: string }>,
) {
  const { parts } = JSON.parse(shape) as { parts: Array<{ header: string[] }> };
  const own = (part: number) => parts[part]!.header.filter((c) => c !== 'error' && c !== 'completedSteps').length;
  return rows.map(({ part, payerKey, original, completedSteps }) => ({
    part,
    payerKey,
    cells: (JSON.parse(original) as string[]).slice(0, own(part)),
    completedSteps,
  }));
}

describe('rows waiting, written back in their own format', () => {
  it('a semicolon CSV with a formula-like cell and carried steps: the same cells, dialect and steps', async () => {
    const header = `${PAYER_HEADER.replaceAll(',', ';')};error;completedSteps`;
    const line = (id: string, steps: string) =>
      `${payerRow(id, { addressLine1: '=1+2 Main St' }).replaceAll(',', ';')};why;${steps}`;
    const path = tmp.path('pending-payers.csv');
    writeFileSync(path, `${header}\r\n${line('a-1', 'compliance')}\r\n${line('b-2', '')}\r\n`);
    const { read, rows, written, again } = await roundTrip(path, 'pending-payers.csv');
    expect(read.rows.map((r) => [r.clientUserId, r.payerKey, r.completedSteps])).toEqual([
      ['a-1', payerKeyOf('a-1'), 'compliance'],
      ['b-2', payerKeyOf('b-2'), ''],
    ]);
    expect(written).toBe(`${written.slice(0, -'pending-payers.csv'.length)}pending-payers.csv`);
    expect(JSON.parse(again.shape).parts[0].dialect).toEqual({ delimiter: ';', bom: false, eol: '\r\n' });
    expect(sameRows(again.shape, again.rows)).toEqual(sameRows(read.shape, rows));
  });

  it('JSONL: each line as it was, with its steps', async () => {
    const path = tmp.path('payers.jsonl');
    const lines = [
      { clientUserId: 'j-1', email: 'j1@example.com', completedSteps: 'compliance' },
      { clientUserId: 'j-2', email: 'j2@example.com', nested: { a: [1, 2] } },
    ];
    writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const { rows, again } = await roundTrip(path, 'pending-payers.jsonl');
    expect(again.rows.map((r) => JSON.parse(JSON.parse(r.original) as string))).toEqual([
      { ...lines[0], error: '' },
      { ...lines[1], error: '', completedSteps: '' },
    ]);
    expect(again.rows.map((r) => [r.clientUserId, r.completedSteps])).toEqual(
      rows.map((r) => [r.clientUserId, r.completedSteps]),
    );
  });

  it('a workbook with a Bank details sheet: the rows picked, each on its sheet, in one workbook', async () => {
    const path = tmp.path('payers.xlsx');
    const bankColumns = ['clientUserId', 'bankName', 'accountName', 'currency', 'accountNumber', 'routingNumber'];
    await writeWorkbook(path, [
      { name: 'Payers', rows: payerRows(['x-1', 'x-2', 'x-3'], {}, PAYER_COLUMNS), textColumns: ['postcode'] },
      {
        name: 'Bank details',
        rows: [bankColumns, ...['x-1', 'x-3'].map((id) => bankColumns.map((c) => payerCells(id)[c]))],
        textColumns: ['accountNumber', 'routingNumber'],
      },
    ]);
    // x-2's payer row and x-3's bank row stay behind.
    const { read, rows, again } = await roundTrip(path, 'pending-payers.xlsx', (seq) => seq !== 2 && seq !== 5);
    expect(read.rows.map((r) => [r.part, r.clientUserId])).toEqual([
      [0, 'x-1'],
      [0, 'x-2'],
      [0, 'x-3'],
      [1, 'x-1'],
      [1, 'x-3'],
    ]);
    expect(JSON.parse(again.shape).parts.map((p: { sheet: string }) => p.sheet)).toEqual(['Payers', 'Bank details']);
    expect(sameRows(again.shape, again.rows)).toEqual(sameRows(read.shape, rows));
  });

  it('a sheet with a column without a name: what shows under it comes back where it was', async () => {
    const path = await writeWithExceljs(tmp.path('aside.xlsx'), {
      sheets: [
        {
          name: 'Payers',
          rows: [
            ['clientUserId', 'email', null, 'firstName'],
            ['w-1', 'w1@example.com', 'aside', 'Ann'],
            ['w-2', 'w2@example.com', null, 'Bo'],
          ],
        },
      ],
    });
    const { read, again } = await roundTrip(path, 'pending-aside.xlsx');
    expect(read.rows.map((r) => JSON.parse(r.original))).toEqual([
      { cells: ['w-1', 'w1@example.com', 'Ann'], unnamed: [{ column: 2, text: 'aside' }] },
      ['w-2', 'w2@example.com', 'Bo'],
    ]);
    expect(JSON.parse(again.shape).parts[0].positions).toEqual([0, 1, 3, 4, 5]);
    expect(again.rows.map((r) => JSON.parse(r.original))).toEqual([
      { cells: ['w-1', 'w1@example.com', 'Ann', '', ''], unnamed: [{ column: 2, text: 'aside' }] },
      ['w-2', 'w2@example.com', 'Bo', '', ''],
    ]);
  });

  it('a file with no clientUserId column is no rows of ours', async () => {
    const path = tmp.path('notes.csv');
    writeFileSync(path, 'name,email\nAda,ada@example.com\n');
    await expect(readWaiting(path, {})).rejects.toThrow('has no clientUserId column');
  });
});
