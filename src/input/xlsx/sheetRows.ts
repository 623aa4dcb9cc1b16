import type { Readable } from 'node:stream';
import { NumberCell } from '../../rows/findData.js';
import { parseXml, type XmlHandler } from '../package/parseXml.js';
import { PartTooLargeError } from '../package/ZipPackage.js';
import type { SheetCell, SheetRow } from '../sheet/scanSheet.js';
import {
  columnOfRef,
  type NumberFormat,
  numberFormat,
  numberText,
  serialDate,
  showsEveryDigit,
  unescapeText,
} from './cellText.js';
import type { WorkbookParts } from './workbookParts.js';

/** Excel's own sheet size: a sheet past it was not made by a spreadsheet, and may unpack to millions of rows. */
const MAX_ROWS = 1_048_576;
const MAX_COLUMNS = 16_384;

/**
 * A worksheet's rows in order, read as its XML streams out of the zip: only the rows of the current chunk are held.
 * Every way a cell may be stored is read: shared strings, inline strings (`<is>`, rich runs joined, phonetic guides
 * left out), formula results whatever the formula (shared formulas carry only their cached `<v>`), booleans,
 * errors, ISO dates (`t="d"`), and numbers, which become dates where their format is a date format.
 */
export async function* sheetRows(stream: Readable, book: WorkbookParts): AsyncGenerator<SheetRow> {
  const reader = new RowReader(book);
  for await (const _ of parseXml(stream, reader)) {
    if (reader.done.length === 0) continue;
    const rows = reader.done;
    reader.done = [];
    // A loop rather than `yield*`, which would wrap the array in an async iterator and add a tick per row.
    for (const row of rows) yield row;
    if (reader.finished) return;
  }
}

const GENERAL = numberFormat(undefined);

const tooLarge = (what: string) => new PartTooLargeError(`the sheet has ${what}, more than Excel holds`);

const ROW = Buffer.from('row');
/** `<row` or `<x:row` (any namespace prefix) followed by a space, `>` or `/`: a row element, not `<rowBreaks>`. */
const isRowTag = (bytes: Buffer, at: number) => {
  const before = bytes[at - 1];
  const after = bytes[at + 3];
  return (before === 0x3c || before === 0x3a) && (after === 0x20 || after === 0x3e || after === 0x2f || after === 0x09);
};

/**
 * Refuses a sheet of more rows than Excel holds before any row of it is read: a sheet streams, so the row past the
 * last would otherwise be met only after a million rows were validated and written (minutes, and their outputs).
 * A pass over the bytes alone, counting row tags, costs a tenth of reading the rows.
 */
export async function refuseTooManyRows(sheet: Readable): Promise<void> {
  if ((await countRowTags(sheet, MAX_ROWS)) > MAX_ROWS)
    throw tooLarge(`more than ${MAX_ROWS.toLocaleString('en-US')} rows`);
}

/** The row tags in a sheet's bytes, counted until the count passes `stopPast` (the stream is then let go). */
export async function countRowTags(sheet: Readable, stopPast: number): Promise<number> {
  let rows = 0;
  // The last bytes of the chunk before, for a tag split across two chunks.
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of sheet as AsyncIterable<Buffer>) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    for (let at = bytes.indexOf(ROW, 1); at >= 0 && at + 3 < bytes.length; at = bytes.indexOf(ROW, at + 3)) {
      if (isRowTag(bytes, at) && ++rows > stopPast) {
        sheet.destroy();
        return rows;
      }
    }
    // `<row` cut off before the byte after it is carried whole; a `row` counted already starts the carry, and the
    // search starts past it.
    carry = bytes.subarray(Math.max(0, bytes.length - 4));
  }
  return rows;
}

class RowReader implements XmlHandler {
  done: SheetRow[] = [];
  /** After `</sheetData>` nothing more is a row (merged cells, print settings): reading stops. */
  finished = false;
  private row: SheetRow | undefined;
  private lastRow = 0;
  private column = -1;
  private type = 'n';
  private style = 0;
  private value: string | undefined;
  private inline: string | undefined;
  private formula = false;
  private capture: 'v' | 't' | undefined;
  private inInline = false;
  private phonetic = 0;
  private readonly styles: NumberFormat[];

  constructor(private readonly book: WorkbookParts) {
    this.styles = book.formats.map(numberFormat);
  }

  // The cases go most frequent first: a sheet is mostly `<c><v>` pairs, and a switch on strings tries them in order.
  open(name: string, a: Readonly<Record<string, string>>): void {
    switch (name) {
      case 'c':
        this.column = (a.r === undefined ? undefined : columnOfRef(a.r)) ?? this.column + 1;
        if (this.column >= MAX_COLUMNS) throw tooLarge(`a cell past column ${MAX_COLUMNS.toLocaleString('en-US')}`);
        this.type = a.t ?? 'n';
        this.style = a.s === undefined ? 0 : Number(a.s);
        this.value = undefined;
        this.inline = undefined;
        this.formula = false;
        return;
      case 'v':
        this.value = '';
        this.capture = 'v';
        return;
      case 'row':
        // `r` is optional: a row without it is the one after the last.
        this.lastRow = a.r === undefined ? this.lastRow + 1 : Number(a.r);
        if (this.lastRow > MAX_ROWS) throw tooLarge(`a row past row ${MAX_ROWS.toLocaleString('en-US')}`);
        this.row = { number: this.lastRow, cells: [] };
        this.column = -1;
        return;
      case 'f':
        this.formula = true;
        return;
      case 'is':
        this.inInline = true;
        this.inline = '';
        return;
      case 'rPh':
        this.phonetic++;
        return;
      case 't':
        if (this.inInline && this.phonetic === 0) this.capture = 't';
        return;
    }
  }

  text(text: string): void {
    if (this.capture === 'v') this.value += text;
    else if (this.capture === 't') this.inline += text;
  }

  close(name: string): void {
    switch (name) {
      case 'v':
        this.capture = undefined;
        return;
      case 'c':
        if (this.row) this.row.cells[this.column] = this.cell();
        return;
      case 'row':
        if (this.row) this.done.push(this.row);
        this.row = undefined;
        return;
      case 't':
        this.capture = undefined;
        return;
      case 'is':
        this.inInline = false;
        return;
      case 'rPh':
        this.phonetic--;
        return;
      case 'sheetData':
        this.finished = true;
        return;
    }
  }

  private cell(): SheetCell | undefined {
    const { value, type } = this;
    switch (type) {
      case 's':
        return value === undefined || value === '' ? undefined : (this.book.sharedStrings[Number(value)] ?? '');
      case 'inlineStr':
        return this.inline === undefined ? (value ?? '') : unescapeText(this.inline);
      case 'str':
        return value === undefined && this.formula ? { noResult: true } : unescapeText(value ?? '');
      case 'b':
        return value === undefined ? undefined : value === '1' || value === 'true' ? 'true' : 'false';
      case 'e':
        return { error: value ?? '#VALUE!' };
      case 'd':
        // An ISO 8601 date-time (Strict OOXML, SheetJS with cellDates); the day is what a date of birth needs.
        return value === undefined ? undefined : /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value;
    }
    if (value === undefined || value.trim() === '') return this.formula ? { noResult: true } : undefined;
    const number = Number(value);
    if (!Number.isFinite(number)) return value;
    const format = this.styles[this.style] ?? GENERAL;
    if (format.date) return serialDate(number, this.book.date1904);
    return new NumberCell(numberText(number, format), number, showsEveryDigit(number, format));
  }
}
