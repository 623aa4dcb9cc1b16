import fc from 'fast-check';
import JSZip from 'jszip';
import { mutate, mutations } from './mutate.js';
import { CSV_SEED } from './seeds.js';
import { cellText, hugeText } from './texts.js';
import type { FuzzInput } from './tryInput.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A cell as a sheet may store it: a shared string (its index maybe out of range), inline text, a number, a flag. */
type Stored = 'shared' | 'inline' | 'number' | 'bool' | 'error' | 'formula';

/** How the rows and cells are numbered: as Excel does, left out (allowed), or wrong in the ways a tool gets it wrong. */
const rowRef = fc.oneof(
  { weight: 8, arbitrary: fc.constant<'right' | 'none'>('right') },
  { weight: 2, arbitrary: fc.constant<'right' | 'none'>('none') },
  { weight: 2, arbitrary: fc.constantFrom('abc', '0', '-5', '1.5', '2', '1048577', '', '1e3', ' 3') },
);
const cellRef = fc.oneof(
  { weight: 8, arbitrary: fc.constant<'right' | 'none'>('right') },
  { weight: 1, arbitrary: fc.constant<'right' | 'none'>('none') },
  { weight: 2, arbitrary: fc.constantFrom('XFD', 'XFE', 'ZZZZ', 'A0', '1A', '', 'a', 'AAAAAAAAAA') },
);

const cell = (huge: number) =>
  fc.record({
    text: fc.oneof({ weight: 150, arbitrary: cellText }, { weight: 2, arbitrary: hugeText(huge) }),
    stored: fc.constantFrom<Stored>('shared', 'inline', 'inline', 'number', 'bool', 'error', 'formula'),
    ref: cellRef,
    sharedIndex: fc.option(fc.integer({ min: -2, max: 100_000 }), { freq: 6 }),
  });

/** An .xlsx of the sample payers as cells, some cells and references changed, its XML or its zip maybe damaged. */
export const xlsxInput = ({ huge, changes, wide }: { huge: number; changes: number; wide: number }) =>
  fc.record({
    rows: fc.integer({ min: 0, max: 4 }),
    refs: fc.array(rowRef, { minLength: 5, maxLength: 5 }),
    edits: fc.array(fc.record({ row: fc.nat(), column: fc.nat(), cell: cell(huge) }), { maxLength: 6 }),
    /** Rows with one cell far to the right: a wide, sparse sheet. */
    sparse: fc.oneof(
      { weight: 30, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: wide }) },
    ),
    xmlChanges: mutations(changes),
    zipChanges: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: mutations(3) }),
    deflate: fc.boolean(),
  });

export type XlsxSpec = ReturnType<typeof xlsxInput> extends fc.Arbitrary<infer T> ? T : never;

/** The workbook's bytes: built with jszip, as an async step the property awaits. */
export async function xlsxBytes(spec: XlsxSpec): Promise<FuzzInput> {
  const table = [CSV_SEED.header, ...CSV_SEED.rows.slice(0, spec.rows)].map((row) =>
    row.map((text) => ({
      text,
      stored: 'shared' as Stored,
      ref: 'right' as string,
      sharedIndex: null as number | null,
    })),
  );
  for (const { row, column, cell } of spec.edits) {
    const cells = table[row % table.length]!;
    cells[column % (cells.length + 1)] = cell;
  }
  const shared: string[] = [];
  const rows = table.map((cells, r) => rowXml(cells, r, spec.refs[r % 5]!, shared));
  for (let i = 0; i < spec.sparse; i++)
    rows.push(`<row r="${table.length + i + 1}"><c r="XFD${table.length + i + 1}"><v>${i}</v></c></row>`);
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN}"><sheetData>${rows.join('')}</sheetData></worksheet>`;
  const zip = new JSZip();
  for (const [name, text] of Object.entries(packageParts(shared))) zip.file(name, text);
  zip.file('xl/worksheets/sheet1.xml', mutate(Buffer.from(sheet), spec.xmlChanges));
  const bytes = await zip.generateAsync({ type: 'uint8array', compression: spec.deflate ? 'DEFLATE' : 'STORE' });
  return { ext: 'xlsx', bytes: mutate(bytes, spec.zipChanges) };
}

function rowXml(
  cells: Array<{ text: string; stored: Stored; ref: string; sharedIndex: number | null }>,
  r: number,
  ref: string,
  shared: string[],
): string {
  const line = r + 1;
  const number = ref === 'right' ? ` r="${line}"` : ref === 'none' ? '' : ` r="${xmlText(ref)}"`;
  const body = cells
    .map((c, i) => {
      const at =
        c.ref === 'right' ? ` r="${column(i)}${line}"` : c.ref === 'none' ? '' : ` r="${xmlText(c.ref)}${line}"`;
      return cellXml(c, at, shared);
    })
    .join('');
  return `<row${number}>${body}</row>`;
}

function cellXml(c: { text: string; stored: Stored; sharedIndex: number | null }, at: string, shared: string[]) {
  switch (c.stored) {
    case 'shared':
      shared.push(c.text);
      return `<c${at} t="s"><v>${c.sharedIndex ?? shared.length - 1}</v></c>`;
    case 'inline':
      return `<c${at} t="inlineStr"><is><t xml:space="preserve">${xmlText(c.text)}</t></is></c>`;
    case 'number':
      return `<c${at}><v>${xmlText(c.text)}</v></c>`;
    case 'bool':
      return `<c${at} t="b"><v>${c.text.length % 2}</v></c>`;
    case 'error':
      return `<c${at} t="e"><v>#N/A</v></c>`;
    case 'formula':
      return `<c${at} t="str"><f>A1&amp;"x"</f><v>${xmlText(c.text)}</v></c>`;
  }
}

const column = (index: number): string =>
  index < 26 ? String.fromCharCode(65 + index) : column(Math.floor(index / 26) - 1) + column(index % 26);

/** The control characters XML 1.0 cannot hold (all below a space but tab, LF and CR). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds
const NOT_IN_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/** XML's five escapes, and characters XML 1.0 cannot hold written as Excel writes them (`_x0000_`). */
const xmlText = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(NOT_IN_XML, (ch) => `_x${ch.charCodeAt(0).toString(16).padStart(4, '0')}_`);

function packageParts(shared: string[]): Record<string, string> {
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
  const sst = shared.map((text) => `<si><t xml:space="preserve">${xmlText(text)}</t></si>`).join('');
  return {
    '[Content_Types].xml': `${head}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    '_rels/.rels': `${head}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `${head}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Payers" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `${head}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    'xl/sharedStrings.xml': `${head}<sst xmlns="${MAIN}" count="${shared.length}" uniqueCount="${shared.length}">${sst}</sst>`,
  };
}
