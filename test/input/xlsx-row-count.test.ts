import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { countRowTags } from '../../src/input/xlsx/sheetRows.js';

// The count that refuses a sheet past Excel's last row before any row is read: every row tag once, whatever the
// chunks the zip hands out, and nothing that merely starts with `row`.

describe('counting a sheet’s rows by their tags', () => {
  const xml = `<sheetData>${'<row r="1"><c><v>row</v></c></row><x:row>\t<row/>'.repeat(3)}<rowBreaks/></sheetData>`;

  it.each(Array.from({ length: 14 }, (_, i) => i + 1))('in chunks of %i bytes: 9 rows', async (size) => {
    const chunks: Buffer[] = [];
    for (let at = 0; at < xml.length; at += size) chunks.push(Buffer.from(xml.slice(at, at + size)));
    expect(await countRowTags(Readable.from(chunks), 100)).toBe(9);
  });

  it('stops once the count passes the limit', async () => {
    expect(await countRowTags(Readable.from([Buffer.from(xml)]), 4)).toBe(5);
  });
});
