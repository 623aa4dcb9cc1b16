import { PackageError, readXml } from '../package/parseXml.js';
import type { ZipPackage } from '../package/ZipPackage.js';
import type { TooLongText } from '../sheet/scanSheet.js';
import { CELL_TEXT_LIMIT, unescapeText } from './cellText.js';
import { partOfType, readRelationships } from './relationships.js';

export interface SheetEntry {
  name: string;
  hidden: boolean;
  /** The worksheet's part name; undefined for a chart sheet or a sheet whose part is missing. */
  part: string | undefined;
}

/** What every cell of a workbook is read with: its sheets, shared strings, number formats and date system. */
export interface WorkbookParts {
  sheets: SheetEntry[];
  /** Each as the cell shows it, or only its length when it is longer than a cell is kept. */
  sharedStrings: (string | TooLongText)[];
  /** By cell style index (`s="3"`): the number format code, or undefined for General. */
  formats: (string | undefined)[];
  /** Dates count from 1904-01-01 (Excel for Mac before 2011, and files that kept its setting). */
  date1904: boolean;
}

/**
 * Reads the parts every sheet needs, found the way the standard says: the package's relationships name the
 * workbook, the workbook's name its sheets, shared strings and styles, wherever the writer put them.
 */
export async function readWorkbookParts(pkg: ZipPackage): Promise<WorkbookParts> {
  const workbookPart =
    partOfType(await readRelationships(pkg, '/'), 'officeDocument') ??
    (pkg.has('/xl/workbook.xml') ? '/xl/workbook.xml' : undefined);
  const workbookStream = workbookPart === undefined ? undefined : await pkg.open(workbookPart);
  if (workbookPart === undefined || workbookStream === undefined) throw new PackageError('no workbook part');
  const relationships = await readRelationships(pkg, workbookPart);

  const sheets: SheetEntry[] = [];
  let date1904 = false;
  await readXml(workbookStream, {
    open(name, a) {
      if (name === 'workbookPr') date1904 = a.date1904 === '1' || a.date1904 === 'true';
      if (name !== 'sheet' || a.name === undefined) return;
      // The relationship id is `r:id` in the relationships namespace, whatever prefix the writer chose for it.
      const id = Object.entries(a).find(([key]) => key.endsWith(':id'))?.[1];
      const target = id === undefined ? undefined : relationships.get(id);
      sheets.push({
        name: a.name,
        hidden: a.state === 'hidden' || a.state === 'veryHidden',
        part:
          target?.type === 'worksheet' && target.part !== undefined && pkg.has(target.part) ? target.part : undefined,
      });
    },
    text() {},
    close() {},
  });
  const strings = partOfType(relationships, 'sharedStrings');
  const styles = partOfType(relationships, 'styles');
  return {
    sheets,
    sharedStrings: strings === undefined ? [] : await readSharedStrings(pkg, strings),
    formats: styles === undefined ? [] : await readCellFormats(pkg, styles),
    date1904,
  };
}

/**
 * The shared strings, each as the cell shows it: a plain `<t>`, and every rich-text run `<r><t>` after it, joined
 * (`O'` + bold `Brien` is `O'Brien`); a phonetic guide (`<rPh>`, the reading Japanese Excel stores beside a name)
 * is left out. Held whole: a cell refers to any of them by number.
 */
async function readSharedStrings(pkg: ZipPackage, part: string): Promise<(string | TooLongText)[]> {
  const stream = await pkg.open(part, 'sharedStrings');
  if (stream === undefined) return [];
  const strings: (string | TooLongText)[] = [];
  let text = '';
  // The string's characters, kept or not: past CELL_TEXT_LIMIT they are only counted.
  let length = 0;
  let inText = false;
  let phonetic = 0;
  const add = (count: number, value: string) => {
    length += count;
    text = length > CELL_TEXT_LIMIT ? '' : text + value;
  };
  await readXml(stream, {
    open(name) {
      if (name === 'si') {
        text = '';
        length = 0;
      } else if (name === 't') inText = true;
      else if (name === 'rPh') phonetic++;
    },
    text(value) {
      if (inText && phonetic === 0) add(value.length, value);
    },
    dropped(count) {
      if (inText && phonetic === 0) add(count, '');
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') strings.push(length > CELL_TEXT_LIMIT ? { tooLong: length } : unescapeText(text));
    },
  });
  return strings;
}

// Excel's built-in number formats that decide how a cell reads: dates (including the East Asian ones, 27-36 and
// 50-58, which carry no format code in the file), the zero-padded `0` and `0.00`, and Text.
const BUILT_IN: Readonly<Record<number, string>> = {
  1: '0',
  2: '0.00',
  14: 'yyyy-mm-dd',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  49: '@',
  ...Object.fromEntries(
    [27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58].map((id) => [id, 'yyyy-mm-dd']),
  ),
};

/** The number format of each cell style (`<cellXfs>`), by index: its own `<numFmt>` code or the built-in one. */
async function readCellFormats(pkg: ZipPackage, part: string): Promise<(string | undefined)[]> {
  const stream = await pkg.open(part);
  if (stream === undefined) return [];
  const codes = new Map<number, string>();
  const styleFormats: number[] = [];
  let inCellXfs = false;
  await readXml(stream, {
    open(name, a) {
      if (name === 'numFmt' && a.numFmtId !== undefined && a.formatCode !== undefined)
        codes.set(Number(a.numFmtId), a.formatCode);
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) styleFormats.push(Number(a.numFmtId ?? 0));
    },
    text() {},
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return styleFormats.map((id) => codes.get(id) ?? BUILT_IN[id]);
}
