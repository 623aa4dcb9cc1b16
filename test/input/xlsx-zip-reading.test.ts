import { readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import JSZip from 'jszip';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { sheetRows } from '../../src/input/xlsx/sheetRows.js';
import { tempDir } from '../helpers/tempDir.js';
import { payerRows, writeWorkbook } from '../helpers/xlsxFixtures.js';

// How the bytes of a part reach the XML parser: deflated parts are inflated piece by piece and checked against the
// size the zip declares; stored parts come as they are; a piece may end anywhere, inside a row or a character.

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

async function readAll(path: string) {
  const input = await openInput(path);
  const records: RawRecord[] = [];
  for await (const record of input.records) records.push(record);
  return records;
}

/** The same workbook, its parts stored as `compression` says. */
async function rezip(path: string, name: string, compression: 'STORE' | 'DEFLATE'): Promise<string> {
  const zip = await JSZip.loadAsync(readFileSync(path));
  const out = tmp.path(name);
  writeFileSync(out, await zip.generateAsync({ type: 'nodebuffer', compression }));
  return out;
}

/** Sets the uncompressed size the central directory declares for `part`, as a damaged or forged zip would. */
function declareSize(path: string, part: string, size: number): void {
  const bytes = readFileSync(path);
  for (let at = bytes.lastIndexOf(Buffer.from('PK\x01\x02', 'latin1')); at > 0; at--) {
    if (bytes.readUInt32LE(at) !== 0x02014b50) continue;
    const nameLength = bytes.readUInt16LE(at + 28);
    if (bytes.toString('utf8', at + 46, at + 46 + nameLength) !== part) continue;
    bytes.writeUInt32LE(size, at + 24);
    writeFileSync(path, bytes);
    return;
  }
  throw new Error(`no central directory entry for ${part}`);
}

const BOOK = { ids: Array.from({ length: 2_000 }, (_, i) => `p-${i + 1}`) };

describe('xlsx parts as the zip holds them', () => {
  it('reads a sheet of many inflated pieces row for row, and a stored copy the same', async () => {
    const deflated = await writeWorkbook(tmp.path('book.xlsx'), [{ name: 'Payers', rows: payerRows(BOOK.ids) }]);
    // More XML than several inflated pieces (zlib hands on 16 KiB at a time), so rows are cut between pieces.
    const zip = await JSZip.loadAsync(readFileSync(deflated));
    expect((await zip.file('xl/worksheets/sheet1.xml')!.async('nodebuffer')).length).toBeGreaterThan(512 * 1024);
    const records = await readAll(deflated);
    expect(records.map((r) => r.original[0])).toEqual(BOOK.ids);
    expect(records.map((r) => r.line)).toEqual(BOOK.ids.map((_, i) => i + 2));
    const stored = await readAll(await rezip(deflated, 'stored.xlsx', 'STORE'));
    expect(stored.map((r) => r.original)).toEqual(records.map((r) => r.original));
  });

  // A part that inflates to more than its declared size is refused as soon as it passes it (a zip bomb stops there);
  // one that ends short is read as far as its XML goes, as yauzl itself reads it.
  it('refuses a worksheet that inflates to more bytes than the zip declares', async () => {
    const path = await rezip(
      await writeWorkbook(tmp.path('w.xlsx'), [{ name: 'Payers', rows: payerRows(['p-1', 'p-2']) }]),
      'p.xlsx',
      'DEFLATE',
    );
    const zip = await JSZip.loadAsync(readFileSync(path));
    const actual = (await zip.file('xl/worksheets/sheet1.xml')!.async('nodebuffer')).length;
    declareSize(path, 'xl/worksheets/sheet1.xml', actual - 1);
    const error = await readAll(path).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^p\.xlsx: is not a readable \.xlsx workbook/);
  });

  it('keeps a character whole when a piece ends inside it', async () => {
    const xml = Buffer.from(
      '<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Müller 山田</t></is></c></row></sheetData></worksheet>',
    );
    const inside = xml.indexOf('山') + 1; // between the first and second byte of a three-byte character
    const book = { sheets: [], sharedStrings: [], formats: [], date1904: false };
    const rows = [];
    for await (const row of sheetRows(Readable.from([xml.subarray(0, inside), xml.subarray(inside)]), book)) {
      rows.push(row);
    }
    expect(rows).toEqual([{ number: 1, cells: [{ column: 0, cell: 'Müller 山田' }] }]);
  });
});
