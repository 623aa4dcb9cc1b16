import type { Readable } from 'node:stream';
import { NumberCell } from '../../rows/findData.js';
import { parseXml, type XmlHandler } from '../package/parseXml.js';
import { PartTooLargeError } from '../package/ZipPackage.js';
import { MAX_COLUMNS, MAX_RECORD_SIZE } from '../InputFile.js';
import type { SheetCell, SheetRow } from '../sheet/scanSheet.js';
import { columnLetter } from '../sheet/sheetInput.js';
import {
  CELL_TEXT_LIMIT,
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

/**
 * A worksheet's rows in order, read as its XML streams out of the zip: only the rows of the current chunk are held.
 * Every way a cell may be stored is read: shared strings, inline strings (`<is>`, rich runs joined, phonetic guides
 * left out), formula results whatever the formula (shared formulas carry only their cached `<v>`), booleans,
 * errors, ISO dates (`t="d"`), and numbers, which become dates where their format is a date format.
 */
export async function* sheetRows(stream: Readable, book: WorkbookParts, sheet = 'Sheet1'): AsyncGenerator<SheetRow> {
  const reader = new RowReader(book, sheet);
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

/** Thrown for a sheet whose rows or cells are placed as no spreadsheet program places them. */
export class SheetDamage extends Error {}

/** The characters a row's cells may hold in all; past this the row's cells are counted, not kept (as CSV's record). */
const MAX_ROW_TEXT = MAX_RECORD_SIZE;

/** How a value the file gives (an `r` attribute) is shown in a message: short, and as written. */
const shown = (value: string) => JSON.stringify(value.length > 12 ? `${value.slice(0, 12)}…` : value);

class RowReader implements XmlHandler {
  done: SheetRow[] = [];
  /** After `</sheetData>` nothing more is a row (merged cells, print settings): reading stops. */
  finished = false;
  private row: SheetRow | undefined;
  /** Row elements met, for a message about one whose number is wrong. */
  private rowElements = 0;
  private rowNumbered = false;
  private lastRow = 0;
  /** Characters in the current row's cells. */
  private rowText = 0;
  private column = -1;
  private type = 'n';
  private style = 0;
  private value: string | undefined;
  private inline: string | undefined;
  /** Characters of the current cell's text, kept or not. */
  private length = 0;
  private formula = false;
  private capture: 'v' | 't' | undefined;
  private inInline = false;
  private phonetic = 0;
  private readonly styles: NumberFormat[];

  constructor(
    private readonly book: WorkbookParts,
    private readonly sheet: string,
  ) {
    this.styles = book.formats.map(numberFormat);
  }

  // The cases go most frequent first: a sheet is mostly `<c><v>` pairs, and a switch on strings tries them in order.
  open(name: string, a: Readonly<Record<string, string>>): void {
    switch (name) {
      case 'c':
        this.openCell(a.r);
        this.type = a.t ?? 'n';
        this.style = a.s === undefined ? 0 : Number(a.s);
        this.value = undefined;
        this.inline = undefined;
        this.length = 0;
        this.formula = false;
        return;
      case 'v':
        this.value = '';
        this.capture = 'v';
        return;
      case 'row':
        this.openRow(a.r);
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
    if (this.capture === undefined) return;
    this.length += text.length;
    if (this.length > CELL_TEXT_LIMIT) {
      // Past the limit the text is only counted: what was kept is let go.
      this.value &&= '';
      this.inline &&= '';
    } else if (this.capture === 'v') this.value += text;
    else this.inline += text;
  }

  dropped(count: number): void {
    if (this.capture !== undefined) this.length += count;
  }

  close(name: string): void {
    switch (name) {
      case 'v':
        this.capture = undefined;
        return;
      case 'c':
        if (this.row) this.keepCell(this.row);
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

  /** `r` is optional: a row without it is the one after the last. A number given must be whole and rising. */
  private openRow(r: string | undefined): void {
    this.rowElements++;
    const number = r === undefined ? this.lastRow + 1 : Number(r);
    if (r !== undefined && !/^[1-9][0-9]*$/.test(r))
      throw this.damage(`its row element ${this.rowElements} is numbered ${shown(r)}, not a whole number from 1`);
    if (number > MAX_ROWS) throw tooLarge(`a row past row ${MAX_ROWS.toLocaleString('en-US')}`);
    if (number <= this.lastRow)
      throw this.damage(
        `its row element ${this.rowElements} is numbered ${number}, which does not come after row ${this.lastRow}`,
      );
    this.row = { number, cells: [] };
    this.rowNumbered = r !== undefined;
    this.lastRow = number;
    this.rowText = 0;
    this.column = -1;
  }

  /**
   * `r` is optional: a cell without it is the one after the last. A reference given must name a column right of the
   * row's last cell, in the row's own row (a row without a number takes its first cell's).
   */
  private openCell(r: string | undefined): void {
    if (r === undefined) {
      this.column++;
    } else {
      const ref = /^([A-Za-z]+)([1-9][0-9]*)$/.exec(r);
      const row = this.row?.number ?? this.lastRow;
      if (ref === null)
        throw this.damage(`in row ${row}, its cell ${shown(r)} is not a cell reference such as A${row}`);
      const column = ref[1]!.length > 3 ? MAX_COLUMNS : columnOfRef(ref[1]!)!;
      if (column >= MAX_COLUMNS) throw tooLarge(`a cell past column ${MAX_COLUMNS.toLocaleString('en-US')}`);
      this.placeRow(Number(ref[2]), r);
      if (column <= this.column)
        throw this.damage(
          `in row ${row}, its cell ${r} comes after ${columnLetter(this.column)}${row}: cells go left to right, each once`,
        );
      this.column = column;
    }
    if (this.column >= MAX_COLUMNS) throw tooLarge(`a cell past column ${MAX_COLUMNS.toLocaleString('en-US')}`);
  }

  /** A cell's reference names its row: the row's number, or the number of a row that had none. */
  private placeRow(number: number, r: string): void {
    const row = this.row;
    if (row === undefined || number === row.number) return;
    const before = row.number - 1;
    if (!this.rowNumbered && row.cells.length === 0 && this.column < 0 && number > before && number <= MAX_ROWS) {
      row.number = number;
      this.lastRow = number;
      return;
    }
    throw this.damage(`its cell ${r} is inside row ${row.number}`);
  }

  /** The cell read, unless blank; its text counted towards the row's, and the cell let go past MAX_ROW_TEXT. */
  private keepCell(row: SheetRow): void {
    const cell = this.cell();
    if (cell === undefined) return;
    // Only kept text counts: a text too long to keep is its cell's own problem.
    if (typeof cell === 'string') this.rowText += cell.length;
    if (this.rowText > MAX_ROW_TEXT) {
      row.tooLong = this.rowText;
      return;
    }
    row.cells.push({ column: this.column, cell });
  }

  private damage(what: string): SheetDamage {
    return new SheetDamage(`sheet "${this.sheet}" is damaged: ${what}`);
  }

  private cell(): SheetCell | undefined {
    const { value, type } = this;
    if (this.length > CELL_TEXT_LIMIT) return { tooLong: this.length };
    switch (type) {
      case 's':
        return value === undefined || value === '' ? undefined : this.sharedString(value);
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

  /** The shared string a cell points at by its index, which must be one the workbook has. */
  private sharedString(index: string): SheetCell {
    const strings = this.book.sharedStrings;
    const text = /^[0-9]{1,9}$/.test(index.trim()) ? strings[Number(index)] : undefined;
    if (text !== undefined) return text;
    const count = strings.length;
    throw this.damage(
      `its cell ${columnLetter(this.column)}${this.row?.number ?? this.lastRow} points at shared string ${shown(index)}, and the workbook has ${count === 0 ? 'none' : `${count} (0 to ${count - 1})`}`,
    );
  }
}
