import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { run } from '../../src/pipeline/run.js';
import { PAYER_HEADER, readResults } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';

// Workbooks a fuzzer wrote, built part by part: each ends in exit 1 (the rows say what is wrong) or exit 2 (one
// sentence naming the file and what in it is wrong), in seconds, and results.csv never holds NaN or one line twice.

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const COLUMNS = PAYER_HEADER.split(',');

const inline = (text: string, ref = '') => `<c${ref && ` r="${ref}"`} t="inlineStr"><is><t>${text}</t></is></c>`;
const HEADER_ROW = `<row r="1">${COLUMNS.map((name) => inline(name)).join('')}</row>`;
/** A row of the payer columns (every value `x`, invalid), its number as given (none when undefined). */
const payer = (r: string | undefined, id: string) =>
  `<row${r === undefined ? '' : ` r="${r}"`}>${COLUMNS.map((c) => inline(c === 'clientUserId' ? id : 'x')).join('')}</row>`;

async function writeBook(name: string, sheetData: string, sharedStrings?: string[]): Promise<string> {
  const zip = new JSZip();
  zip.file('xl/worksheets/sheet1.xml', `<worksheet xmlns="${MAIN}"><sheetData>${sheetData}</sheetData></worksheet>`);
  zip.file(
    '_rels/.rels',
    `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  const strings = `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`;
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>${sharedStrings ? strings : ''}</Relationships>`,
  );
  zip.file(
    'xl/workbook.xml',
    `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Payers" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  );
  if (sharedStrings)
    zip.file(
      'xl/sharedStrings.xml',
      `<sst xmlns="${MAIN}">${sharedStrings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`,
    );
  const tmp = tempDir();
  return tmp.write(name, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
}

/** validate: its exit code, the sentence of a refusal, results.csv's rows. */
async function validate(path: string) {
  const tmp = tempDir();
  try {
    const summary = await run({ inputs: [path], out: tmp.path('out'), command: 'validate' }, { cwd: tmp.dir });
    const rows = readResults(summary.outputs.results);
    const lines = rows.map((r) => r.line);
    expect(lines.every((line) => /^[1-9][0-9]*$/.test(line!))).toBe(true);
    expect(new Set(lines).size).toBe(lines.length);
    return { exitCode: summary.exitCode, rows, failed: summary.outputs.failed, message: undefined };
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    const message = (error as InputError).message;
    expect(message.split('\n')).toHaveLength(1);
    return { exitCode: (error as InputError).exitCode, rows: [], failed: [], message };
  }
}

const SAVE = 'save it again from Excel as .xlsx';

describe('row and cell numbers no spreadsheet writes', () => {
  it.each([
    ['r="abc"', payer('abc', 'p-1'), 'its row element 2 is numbered "abc", not a whole number from 1'],
    [
      'three rows r="2"',
      payer('2', 'p-1') + payer('2', 'p-2'),
      'its row element 3 is numbered 2, which does not come after row 2',
    ],
    ['r="0"', payer('0', 'p-1'), 'its row element 2 is numbered "0", not a whole number from 1'],
    ['r="-5"', payer('-5', 'p-1'), 'its row element 2 is numbered "-5", not a whole number from 1'],
    ['r="1.5"', payer('1.5', 'p-1'), 'its row element 2 is numbered "1.5", not a whole number from 1'],
    [
      'a row before the last',
      payer('5', 'p-1') + payer('3', 'p-2'),
      'its row element 3 is numbered 3, which does not come after row 5',
    ],
    [
      'a cell A0',
      `<row r="2">${inline('p-1', 'A0')}</row>`,
      'in row 2, its cell "A0" is not a cell reference such as A2',
    ],
    [
      'a cell 2A',
      `<row r="2">${inline('p-1', '2A')}</row>`,
      'in row 2, its cell "2A" is not a cell reference such as A2',
    ],
    ['a cell in another row', `<row r="2">${inline('p-1', 'A3')}</row>`, 'its cell A3 is inside row 2'],
    [
      'a column going back',
      `<row r="2">${inline('p-1', 'C2')}${inline('x', 'A2')}</row>`,
      'in row 2, its cell A2 comes after C2: cells go left to right, each once',
    ],
    [
      'a column twice',
      `<row r="2">${inline('p-1', 'B2')}${inline('x', 'B2')}</row>`,
      'in row 2, its cell B2 comes after B2: cells go left to right, each once',
    ],
  ])('%s: refused with exit 2, one sentence naming the file and the sheet', async (_, rows, said) => {
    const path = await writeBook('numbers.xlsx', HEADER_ROW + rows);
    const { exitCode, message } = await validate(path);
    expect(exitCode).toBe(2);
    expect(message).toBe(`numbers.xlsx: sheet "Payers" is damaged: ${said}: ${SAVE}`);
  });

  it('a cell past XFD (ZZZZ1) is refused as past Excel’s size', async () => {
    const path = await writeBook('wide.xlsx', `${HEADER_ROW}<row r="2">${inline('p-1', 'ZZZZ2')}</row>`);
    const { exitCode, message } = await validate(path);
    expect(exitCode).toBe(2);
    expect(message).toContain('wide.xlsx: refused: the sheet has a cell past column 16,384');
  });

  it('a shared string index past the table: refused, naming the cell', async () => {
    const path = await writeBook('sst.xlsx', `${HEADER_ROW}<row r="2"><c r="A2" t="s"><v>7</v></c></row>`, ['a']);
    const { exitCode, message } = await validate(path);
    expect(exitCode).toBe(2);
    expect(message).toBe(
      `sst.xlsx: sheet "Payers" is damaged: its cell A2 points at shared string "7", and the workbook has 1 (0 to 0): ${SAVE}`,
    );
  });

  it('rows and cells without r follow the one before, as Excel reads them; a row without r takes its cells’ number', async () => {
    const noRefs = `<row>${COLUMNS.map((c) => `<c t="inlineStr"><is><t>${c === 'clientUserId' ? 'p-2' : 'x'}</t></is></c>`).join('')}</row>`;
    const numberedByCell = `<row>${inline('p-3', 'A7')}${inline('x', 'B7')}</row>`;
    const path = await writeBook('follow.xlsx', HEADER_ROW + payer(undefined, 'p-1') + noRefs + numberedByCell);
    const { exitCode, rows } = await validate(path);
    expect(exitCode).toBe(1);
    expect(rows.map((r) => r.line)).toEqual(['2', '3', '7']);
    expect(rows.slice(0, 2).map((r) => r.clientUserId)).toEqual(['p-1', 'p-2']);
  });
});

describe('sheets as wide as Excel allows', () => {
  it('a header reaching XFD and one bad row: exit 1, the failed workbook holds every column, its error in a note', async () => {
    const header = HEADER_ROW.replace('</row>', `${inline('note', 'XFD1')}</row>`);
    const path = await writeBook('xfd.xlsx', header + payer('2', 'p-1'));
    const { exitCode, rows, failed } = await validate(path);
    expect(exitCode).toBe(1);
    expect(rows.map((r) => [r.line, r.outcome])).toEqual([['2', 'invalid']]);

    const again = await validate(failed[0]!);
    expect(again.exitCode).toBe(1);
    expect(again.rows.map((r) => [r.line, r.clientUserId, r.error])).toEqual([['2', 'p-1', rows[0]!.error]]);
    const sheet = await JSZip.loadAsync(readFileSync(failed[0]!));
    const comments = Object.keys(sheet.files).find((name) => /comments\d*\.xml$/.test(name));
    expect(await sheet.file(comments!)!.async('string')).toContain('error: email: must be a valid e-mail address');
    // Its row holds the cells the input had, not 16,384 empty ones (a sheet of them: megabytes a row, seconds each).
    const rowXml = /<row r="2"[\s\S]*?<\/row>/.exec(await sheet.file('xl/worksheets/sheet1.xml')!.async('string'));
    expect(rowXml?.[0].match(/<c /g)?.length).toBeLessThan(40);
  });

  it('8,000 rows of one number at XFD: read in time to their cells, each row says what is past the header', async () => {
    const rows = Array.from({ length: 8_000 }, (_, i) => `<row r="${i + 2}"><c r="XFD${i + 2}"><v>1</v></c></row>`);
    const path = await writeBook('sparse.xlsx', HEADER_ROW + rows.join(''));
    const result = await validate(path);
    expect(result.exitCode).toBe(1);
    expect(result.rows).toHaveLength(8_000);
    expect(new Set(result.rows.map((r) => r.error))).toEqual(
      new Set(['(row): has a value in column XFD, right of the last header: give that column a header or clear it']),
    );
  }, 30_000);
});

describe('columns without a name', () => {
  // The payer columns are A to U; a column with no name (V to Y), then `notes` at Z.
  const header = HEADER_ROW.replace('</row>', `${inline('notes', 'Z1')}</row>`);
  /** The sheet's cells that hold something, by reference. */
  const cellsOf = async (path: string) => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path);
    const cells = new Map<string, string>();
    book.worksheets[0]!.eachRow((row) => {
      row.eachCell((cell) => {
        cells.set(cell.address, cell.text);
      });
    });
    return cells;
  };

  it('no field reads them; the failed workbook keeps each cell where it was, run after run', async () => {
    const row = payer('2', 'p-1').replace('</row>', `${inline('kept aside', 'X2')}${inline('a note', 'Z2')}</row>`);
    const path = await writeBook('unnamed.xlsx', header + row);
    const first = await validate(path);
    expect(first.exitCode).toBe(1);
    expect(first.rows[0]!.error).not.toMatch(/column X|\(row\)/);

    const cells = await cellsOf(first.failed[0]!);
    expect([cells.get('A1'), cells.get('Z1'), cells.get('AA1'), cells.get('AB1')]).toEqual([
      'clientUserId',
      'notes',
      'error',
      'completedSteps',
    ]);
    expect([cells.get('A2'), cells.get('X2'), cells.get('Z2'), cells.get('AA2')]).toEqual([
      'p-1',
      'kept aside',
      'a note',
      first.rows[0]!.error,
    ]);
    expect(cells.has('X1')).toBe(false);

    // Fed back, its error and completedSteps stay in their columns and the unnamed cell in its own.
    const again = await validate(first.failed[0]!);
    expect(again.rows.map((r) => r.error)).toEqual([first.rows[0]!.error]);
    const next = await cellsOf(again.failed[0]!);
    expect([next.get('X2'), next.get('AA1'), next.get('AB1'), next.get('AC1')]).toEqual([
      'kept aside',
      'error',
      'completedSteps',
      undefined,
    ]);
  });

  it('a total under one is still no payer row, and the message names its column by letter', async () => {
    const total = `<row r="3">${inline('Total', 'W3')}${inline('2', 'A3')}</row>`.replace(
      /(<c r="W3".*?<\/c>)(<c r="A3".*?<\/c>)/,
      '$2$1',
    );
    const path = await writeBook('total.xlsx', header + payer('2', 'p-1') + total);
    const { rows } = await validate(path);
    expect(rows.map((r) => [r.line, r.error])).toEqual([
      ['2', expect.any(String)],
      [
        '3',
        '(row): is not a payer row: only "clientUserId" and "column W" are filled (a total or a note?): delete the row, or move it off the sheet',
      ],
    ]);
  });
});

describe('a cell longer than a cell is kept', () => {
  const long = (length: number) => 'a'.repeat(length);

  it.each([
    ['inline, 3 MB', (text: string) => `<row r="2">${inline(text)}${inline('p@example.com')}</row>`, undefined],
    ['shared, 3 MB', () => `<row r="2"><c t="s"><v>0</v></c>${inline('p@example.com')}</row>`, 'shared'],
  ])('%s: the row says how long, and the failed workbook holds none of it', async (_, row, shared) => {
    const text = long(3 * 1024 * 1024);
    const path = await writeBook('long.xlsx', HEADER_ROW + row(text), shared ? [text] : undefined);
    const { exitCode, rows, failed } = await validate(path);
    expect(exitCode).toBe(1);
    expect(rows.map((r) => [r.line, r.error])).toEqual([
      ['2', `clientUserId: is ${text.length} characters long, at most 10000`],
    ]);
    const book = await JSZip.loadAsync(readFileSync(failed[0]!));
    const sheet = await book.file('xl/worksheets/sheet1.xml')!.async('string');
    expect(sheet.length).toBeLessThan(100_000);
  });

  it('a row whose cells hold more than 4 MB in all: the row says so', async () => {
    const cells = Array.from({ length: 10 }, () => inline(long(9_000)));
    const rows = Array.from({ length: 50 }, () => cells.join('')).join('');
    const path = await writeBook('wide-text.xlsx', `${HEADER_ROW}<row r="2">${rows}</row>`);
    const { exitCode, rows: results } = await validate(path);
    expect(exitCode).toBe(1);
    expect(results.map((r) => r.error)).toEqual([
      expect.stringMatching(/^\(row\): is larger than 4 MB \(\d+ characters in its cells\)$/),
    ]);
  });
});

describe('the XML parser under a text of hundreds of megabytes', () => {
  it('keeps the start of a run, counts the rest, and holds no more than that however long', async () => {
    const { MAX_TEXT_RUN, readXml } = await import('../../src/input/package/parseXml.js');
    const { Readable } = await import('node:stream');
    const block = Buffer.alloc(1024 * 1024, 'a');
    // An entity straddles the cut, which moves back before it rather than split it.
    const start = `<r><t>${'b'.repeat(MAX_TEXT_RUN - 2)}&amp;`;
    const chunks = function* () {
      yield Buffer.from(start);
      for (let i = 0; i < 200; i++) yield block;
      yield Buffer.from('</t><t>after</t></r>');
    };
    let kept = '';
    let dropped = 0;
    const texts: string[] = [];
    const heap = process.memoryUsage().heapUsed;
    let peak = 0;
    await readXml(Readable.from(chunks()), {
      open: () => {},
      text: (text) => {
        kept += text;
      },
      dropped: (count) => {
        dropped += count;
        peak = Math.max(peak, process.memoryUsage().heapUsed - heap);
      },
      close: (name) => {
        if (name === 't') texts.push(kept);
        kept = '';
      },
    });
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe('b'.repeat(MAX_TEXT_RUN - 2));
    expect(texts[0]!.length + dropped).toBe(start.length - 6 + 200 * block.length);
    expect(texts[1]).toBe('after');
    expect(peak).toBeLessThan(100 * 1024 * 1024);
  });
});
