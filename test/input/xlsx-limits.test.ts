import { writeFileSync } from 'node:fs';
import JSZip from 'jszip';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { harness, PAYER_HEADER } from '../helpers/runHarness.js';

// Workbooks no spreadsheet program writes, built part by part: a sheet past Excel's size, a part that unpacks a
// thousand times its packed size. Each is refused while reading, before anything is sent.

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

const HEADER_ROW = `<row r="1">${PAYER_HEADER.split(',')
  .map((name) => `<c t="inlineStr"><is><t>${name}</t></is></c>`)
  .join('')}</row>`;

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

async function writeBook(name: string, sheetData: string): Promise<string> {
  const zip = new JSZip();
  zip.file('xl/worksheets/sheet1.xml', `<worksheet xmlns="${MAIN}"><sheetData>${sheetData}</sheetData></worksheet>`);
  zip.file(
    '_rels/.rels',
    `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
  );
  zip.file(
    'xl/workbook.xml',
    `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Payers" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  );
  const path = h.tmp.path(name);
  writeFileSync(path, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return path;
}

async function refused(path: string): Promise<InputError> {
  const error = await h.run({ inputs: [path] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  expect((error as InputError).exitCode).toBe(2);
  expect(h.sandbox.stats().requests).toBe(0);
  return error as InputError;
}

describe('workbooks past what a spreadsheet holds', () => {
  it('a sheet of 1,100,000 rows, small once packed: refused before any row is read, validate included', async () => {
    const rows = Array.from({ length: 1_100_000 }, (_, i) => `<row r="${i + 2}"/>`).join('');
    const path = await writeBook('rows.xlsx', HEADER_ROW + rows);
    const message =
      'rows.xlsx: refused: the sheet has more than 1,048,576 rows, more than Excel holds. Save it again from Excel as .xlsx, or as CSV';

    expect((await refused(path)).message).toBe(message);
    // validate reads a file once, writing as it goes: the refusal comes before the first row, so nothing is written.
    const error = await h.run({ inputs: [path], dryRun: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as InputError).message).toBe(message);
  });

  it('a sheet whose rows jump past Excel’s last: refused at that row', async () => {
    const path = await writeBook('jump.xlsx', `${HEADER_ROW}<row r="2000000"/>`);
    expect((await refused(path)).message).toBe(
      'jump.xlsx: refused: the sheet has a row past row 1,048,576, more than Excel holds. Save it again from Excel as .xlsx, or as CSV',
    );
  });

  it('a cell past column 16,384: refused', async () => {
    const path = await writeBook('wide.xlsx', `${HEADER_ROW}<row r="2"><c r="XFE2"><v>1</v></c></row>`);

    const error = await refused(path);
    expect(error.message).toContain('wide.xlsx: refused: the sheet has a cell past column 16,384');
  });

  it('a part that unpacks past a hundred times its packed size: refused before it is read', async () => {
    const padding = ' '.repeat(20 * 1024 * 1024);
    const path = await writeBook('bomb.xlsx', `${HEADER_ROW}${padding}`);

    const error = await refused(path);
    expect(error.message).toMatch(
      /^bomb\.xlsx: refused: xl\/worksheets\/sheet1\.xml unpacks to more than 100 times its packed size \(\d+ KB\), as a zip bomb does\./,
    );
  });
});
