import { writeFileSync } from 'node:fs';
import JSZip from 'jszip';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { NumberCell } from '../../src/rows/findData.js';
import { tempDir } from '../helpers/tempDir.js';

// Packages written part by part, the way no one library writes them all: what the standard allows and some producer
// does (absolute targets as openpyxl, the worksheet stored before the workbook as SheetJS, `x:` prefixes as the
// .NET Open XML SDK, inline strings, rich runs, Japanese Excel's phonetic guides, shared formulas, the 1904 system).

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

const inline = (text: string) => `<x:c t="inlineStr"><x:is><x:t>${text}</x:t></x:is></x:c>`;

const SHARED = [
  `<x:si><x:t>O'</x:t><x:r><x:rPr><x:b/></x:rPr><x:t>Brien</x:t></x:r></x:si>`,
  `<x:si><x:r><x:t>山田</x:t></x:r><x:rPh sb="0" eb="2"><x:t>ヤマダ</x:t></x:rPh><x:phoneticPr fontId="1"/></x:si>`,
  `<x:si><x:t xml:space="preserve">Smith_x0009_Jr &amp; Co</x:t></x:si>`,
];

const SHEET = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<x:worksheet xmlns:x="${MAIN}"><x:sheetData>
<x:row r="1">${['clientUserId', 'firstName', 'lastName', 'dateOfBirth', 'postcode', 'note'].map(inline).join('')}</x:row>
<x:row r="2"><x:c r="A2" t="inlineStr"><x:is><x:t>c-1</x:t></x:is></x:c><x:c r="B2" t="s"><x:v>0</x:v></x:c><x:c r="C2" t="s"><x:v>1</x:v></x:c><x:c r="D2" s="1"><x:v>29929</x:v></x:c><x:c r="E2" t="str"><x:f>TEXT(2139,"00000")</x:f><x:v>02139</x:v></x:c><x:c r="F2" t="inlineStr"><x:is><x:r><x:t>Tan</x:t></x:r><x:r><x:rPr><x:i/></x:rPr><x:t>aka</x:t></x:r><x:rPh sb="0" eb="3"><x:t>タナカ</x:t></x:rPh></x:is></x:c></x:row>
<x:row>${inline('c-2')}<x:c t="s"><x:v>2</x:v></x:c><x:c t="s"><x:v>1</x:v></x:c><x:c t="d"><x:v>1990-01-02T00:00:00</x:v></x:c><x:c><x:v>2139</x:v></x:c><x:c t="b"><x:v>1</x:v></x:c></x:row>
<x:row r="4"><x:c r="A4" t="inlineStr"><x:is><x:t>c-3</x:t></x:is></x:c><x:c r="D4" s="2"><x:f t="shared" ref="D4:D5" si="0">D2+1</x:f><x:v>29930</x:v></x:c><x:c r="E4" s="3"><x:v>2139</x:v></x:c></x:row>
<x:row r="6"><x:c r="A6" t="inlineStr"><x:is><x:t>c-4</x:t></x:is></x:c><x:c r="D6" s="2"><x:f t="shared" si="0"/><x:v>29931</x:v></x:c></x:row>
</x:sheetData><x:mergeCells count="0"/></x:worksheet>`;

/** The parts, in the order they are stored: the worksheet first, the workbook last. */
function parts(sheet = SHEET): [string, string][] {
  return [
    ['xl/worksheets/data.xml', sheet],
    ['xl/sharedStrings.xml', `<x:sst xmlns:x="${MAIN}" count="3" uniqueCount="3">${SHARED.join('')}</x:sst>`],
    [
      'xl/styles.xml',
      `<styleSheet xmlns="${MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts><cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="14"/><xf numFmtId="49"/></cellXfs></styleSheet>`,
    ],
    [
      '[Content_Types].xml',
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>',
    ],
    [
      '_rels/.rels',
      `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="/xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId7" Type="${REL}/worksheet" Target="/xl/worksheets/data.xml"/><Relationship Id="rId8" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId9" Type="${REL}/styles" Target="./styles.xml"/><Relationship Id="rId10" Type="${REL}/hyperlink" Target="https://example.com/a%20b" TargetMode="External"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<x:workbook xmlns:x="${MAIN}" xmlns:r="${REL}"><x:workbookPr date1904="1"/><x:sheets><x:sheet name="Payers" sheetId="3" r:id="rId7"/></x:sheets></x:workbook>`,
    ],
  ];
}

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

async function writePackage(name: string, entries: [string, string][]): Promise<string> {
  const zip = new JSZip();
  for (const [path, text] of entries) zip.file(path, text);
  const path = tmp.path(name);
  writeFileSync(path, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return path;
}

async function readAll(path: string, sheet?: string) {
  const input = await openInput(path, sheet === undefined ? {} : { sheet });
  const records: RawRecord[] = [];
  for await (const record of input.records) records.push(record);
  return { input, records };
}

describe('xlsx packages as the standard allows them', () => {
  it('finds every part by its relationships and reads each kind of cell as the sheet shows it', async () => {
    const path = await writePackage('book.xlsx', parts());
    const { input, records } = await readAll(path);
    expect(input.sheets).toEqual(['Payers']);
    expect(input.header).toEqual(['clientUserId', 'firstName', 'lastName', 'dateOfBirth', 'postcode', 'note']);
    expect(records.map((r) => [r.line, r.original])).toEqual([
      [2, ['c-1', "O'Brien", '山田', '1985-12-10', '02139', 'Tanaka']],
      [3, ['c-2', 'Smith\tJr & Co', '山田', '1990-01-02', '2139', 'true']],
      [4, ['c-3', '', '', '1985-12-11', '2139', '']],
      [6, ['c-4', '', '', '1985-12-12', '', '']],
    ]);
    // A number cell stays known as one, whatever its format, so the identifier checks can see it.
    expect(records[1]!.cells[4]!.value).toEqual(new NumberCell('2139', 2139));
    expect(records[2]!.cells[4]!.value).toBeInstanceOf(NumberCell);
    expect(records[0]!.cells[4]!.value).toBe('02139');
  });

  it('reads --sheet by its name, however the package stores the sheet, and needs no temporary folder', async () => {
    const path = await writePackage('book.xlsx', parts());
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp.path('no-such-folder');
    try {
      for (const name of ['Payers', 'payers', ' PAYERS ']) {
        const { input, records } = await readAll(path, name);
        expect(input.file).toMatchObject({ sheet: 'Payers', name: 'book.xlsx' });
        expect(records).toHaveLength(4);
      }
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('keeps a character whole where the zip hands it over in two pieces', async () => {
    const long = 'Müller-山田-'.repeat(800); // far more than one chunk of inflated XML
    const sheet = SHEET.replace('<x:t>c-4</x:t>', `<x:t>${long}</x:t>`);
    const { records } = await readAll(await writePackage('book.xlsx', parts(sheet)));
    expect(records[3]!.original[0]).toBe(long);
  });

  it.each([
    ['a zip with no workbook in it', () => writePackage('p.xlsx', [['readme.txt', 'hello']])],
    ['a workbook whose XML is cut short', () => writePackage('p.xlsx', parts(SHEET.slice(0, 700)))],
    // Text with a delimiter on its first line is read as the CSV it is (with a warning); other text is refused.
    ['a text file', async () => tmp.write('p.xlsx', 'not a workbook\n')],
  ])('refuses %s as not a readable workbook', async (_, write) => {
    const error = await readAll(await write()).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'p.xlsx: is not a readable .xlsx workbook (a password-protected or damaged file, or another format renamed .xlsx): save it again from Excel as .xlsx',
    );
  });
});
