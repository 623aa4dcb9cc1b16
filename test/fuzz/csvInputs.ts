import fc from 'fast-check';
import { mutate, mutations } from './mutate.js';
import { CSV_SEED } from './seeds.js';
import { cellText, hugeText } from './texts.js';
import type { FuzzInput } from './tryInput.js';

type Encoding = 'utf8' | 'utf8-bom' | 'utf16le-bom' | 'utf16be-bom' | 'utf16le' | 'windows-1252';

/** How a person's tool writes a table out: its separator, quoting, line ends, encoding, and a last line end or not. */
interface Layout {
  separator: string;
  quote: 'minimal' | 'all' | 'never';
  newline: string;
  encoding: Encoding;
  finalNewline: boolean;
}

const layout: fc.Arbitrary<Layout> = fc.record({
  separator: fc.constantFrom(',', ';', '\t', '|'),
  quote: fc.constantFrom<Layout['quote']>('minimal', 'all', 'never'),
  newline: fc.constantFrom('\n', '\r\n', '\r'),
  encoding: fc.constantFrom<Encoding>(
    'utf8',
    'utf8',
    'utf8-bom',
    'utf16le-bom',
    'utf16be-bom',
    'utf16le',
    'windows-1252',
  ),
  finalNewline: fc.boolean(),
});

/** A change to the table before it is written: a cell (header or row) given another text, or a column dropped. */
const edit = (huge: number) =>
  fc.oneof(
    { weight: 200, arbitrary: fc.record({ row: fc.nat(), column: fc.nat(), text: cellText }) },
    // Rare: a huge cell costs a hundred small files' time, and one in a while finds what a cap misses.
    { weight: 3, arbitrary: fc.record({ row: fc.nat(), column: fc.nat(), text: hugeText(huge) }) },
    { weight: 30, arbitrary: fc.record({ drop: fc.nat() }) },
  );

/** A CSV, TSV or text file of the sample payers, edited, written one of the ways tools do, then its bytes changed. */
export const csvInput = ({ huge, changes }: { huge: number; changes: number }): fc.Arbitrary<FuzzInput> =>
  fc
    .record({
      rows: fc.integer({ min: 0, max: 4 }),
      edits: fc.array(edit(huge), { maxLength: 6 }),
      layout,
      ext: fc.constantFrom<FuzzInput['ext']>('csv', 'csv', 'tsv', 'txt'),
      changes: mutations(changes),
    })
    .map(({ rows, edits, layout, ext, changes }) => {
      const table = [CSV_SEED.header, ...CSV_SEED.rows.slice(0, rows)].map((row) => [...row]);
      for (const e of edits) {
        if ('drop' in e) for (const row of table) row.splice(e.drop % row.length, 1);
        else {
          const row = table[e.row % table.length]!;
          row[e.column % (row.length + 1)] = e.text;
        }
      }
      return { ext, bytes: mutate(encode(write(table, layout), layout.encoding), changes) };
    });

function write(table: string[][], how: Layout): string {
  const quoted = (cell: string) => {
    const needs = cell.includes(how.separator) || /["\r\n]/.test(cell) || how.quote === 'all';
    return how.quote === 'never' || !needs ? cell : `"${cell.replaceAll('"', '""')}"`;
  };
  const text = table.map((row) => row.map(quoted).join(how.separator)).join(how.newline);
  return how.finalNewline ? text + how.newline : text;
}

function encode(text: string, encoding: Encoding): Uint8Array {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'utf8-bom':
      return Buffer.from(`\ufeff${text}`, 'utf8');
    case 'utf16le':
      return Buffer.from(text, 'utf16le');
    case 'utf16le-bom':
      return Buffer.from(`\ufeff${text}`, 'utf16le');
    case 'utf16be-bom':
      return Buffer.from(`\ufeff${text}`, 'utf16le').swap16();
    case 'windows-1252':
      // Latin-1's bytes are Windows-1252's for every letter a European name has; the rest becomes `?` as such tools do.
      return Buffer.from(
        text.replace(/[^\x20-\xff\t\n\r]/g, (ch) => (ch < ' ' ? ch : '?')),
        'latin1',
      );
  }
}
