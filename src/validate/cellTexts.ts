import { advice, type Hint, type Readers } from '../core/advice.js';
import type { DateFormat } from '../core/types.js';
import { DIGIT_FIELDS } from '../rows/fields.js';
import type { NumberCell } from '../rows/findData.js';
import { fieldId, fieldName } from '../rows/layout.js';
import { type RowCells, TEXT } from './rowCells.js';
import { keepsEveryDigit, lengthLost } from './digitLengths.js';
import { type OrderedIssue, withValue } from './textChecks.js';

// A row's cell texts before the field rules see them: what a spreadsheet did to them, and dates written another way.

// Fields holding numbers that are not amounts: a spreadsheet that read them as numbers damaged them. A clientUserId
// is anyone's own id, whose number cell is refused only where digits certainly went.
const NUMBER_LIKE: ReadonlySet<string> = new Set(['clientUserId', ...DIGIT_FIELDS]);
// The field a `bank*` override column checks as.
const AS_FIELD: Record<string, string> = { bankDateOfBirth: 'dateOfBirth', bankPostalCode: 'postalCode' };
// Codes of a fixed 6 digits, shown by a number cell with 5 when they start with 0.
const SIX_DIGITS: Record<string, string> = { sortCode: 'a sort code', bsbNumber: 'a BSB number' };

/** How a damaged value is fixed where it was typed: in a spreadsheet's column (or the page's grid), or in a JSONL line. */
interface Fixes {
  digits: string;
  phone: string;
  date: string;
}

const retyped = (readers: Readers): Fixes => ({
  digits: advice({ kind: 'retype', value: 'digits' }, readers),
  phone: advice({ kind: 'retype', value: 'phone' }, readers),
  date: advice({ kind: 'retype', value: 'date' }, readers),
});
const FIXES: Readonly<Record<Readers, Fixes>> = {
  terminal: retyped('terminal'),
  page: retyped('page'),
  inbox: retyped('inbox'),
};

function jsonFix(key: string, field: string): Fixes {
  const as = (value: string) => `(${JSON.stringify(key)}: "${value}")`;
  return {
    digits: `write it with all its digits, as a string ${as(field === 'postcode' || field === 'postalCode' ? '0...' : '...')}`,
    phone: `write it as a string with the + ${as('+...')}`,
    date: `write it as YYYY-MM-DD ${as('1980-12-31')}`,
  };
}

/**
 * Names the damage a spreadsheet does before the field rules see the cell, so the message says what
 * happened rather than only what is wrong: `1.21755E+10` "was turned into a number by the spreadsheet", a 5-digit
 * sort code "looks like a leading zero was lost", a phone whose `+` went. A damaged cell becomes UNUSABLE, so it is
 * not also called "required". With `dateFormat`, dates written that way are converted to YYYY-MM-DD in place; other
 * dates are left to the YYYY-MM-DD rule. Values are echoed only as withValue allows; the advice is worded for `readers`.
 */
export function repairSpreadsheetDamage(
  row: RowCells,
  options: { dateFormat?: DateFormat | undefined; json?: boolean | undefined; readers?: Readers | undefined } = {},
): OrderedIssue[] {
  const issues: OrderedIssue[] = [];
  const readers = options.readers ?? 'terminal';
  for (const id of DAMAGEABLE) {
    if (row.state[id] !== TEXT) continue;
    const name = fieldName(id);
    const field = AS_FIELD[name] ?? name;
    let problem: string | undefined;
    if (field === 'dateOfBirth' && options.dateFormat) {
      const iso = readDate(row.text[id]!, options.dateFormat);
      if (iso !== undefined)
        row.text[id] = iso; // still checked as a real, past date by the field rules
      else if (!/^\d{4}-\d{2}-\d{2}$/.test(row.text[id]!))
        problem = `must be YYYY-MM-DD or ${options.dateFormat} (${advice({ kind: 'date-format-given' }, readers)})`;
    }
    const text = row.text[id]!;
    const cell = row.numberCell(id);
    // A JSONL line has no column to format: its fix is the value written out whole, as the line names its key.
    const fix = options.json ? jsonFix(row.column(id), field) : FIXES[readers];
    problem ??=
      cell === undefined
        ? shortPostcode(id, field, text, row, fix)
        : numberCellDamage(id, field, text, cell, row, readers);
    problem ??= damageOf(field, text, fix);
    const order =
      problem === undefined && field === 'dateOfBirth' && !options.dateFormat ? howDateReads(text) : undefined;
    if (order !== undefined) problem = 'must be YYYY-MM-DD';
    if (problem === undefined) continue;
    const reading = order === undefined ? '' : `: ${advice(options.json ? { ...order, json: true } : order, readers)}`;
    const message = withValue(problem, field, text, readers) + reading;
    issues.push({ column: row.column(id), message, order: row.order(id) });
    row.spoil(id);
  }
  return issues;
}

// The only fields a spreadsheet's damage is looked for in (every other cell is passed over unread).
const DAMAGEABLE: readonly number[] = [...NUMBER_LIKE, 'dateOfBirth', ...Object.keys(AS_FIELD)].map(fieldId);

/**
 * What a spreadsheet number cell in an identifier column lost, or may have: said as certain where it is (fewer
 * digits than the identifier always has, digits past the 15th kept as zeros, a phone's +), and otherwise refused
 * unless its format shows every digit or its digits are the only length the field can have for the row (a routing
 * number's 9, a US ZIP's 5): an account number of 9 digits may be one of 12 whose zeros went, and no rule of the
 * field can tell.
 */
function numberCellDamage(
  id: number,
  field: string,
  text: string,
  cell: NumberCell,
  row: RowCells,
  readers: Readers,
): string | undefined {
  if (!NUMBER_LIKE.has(field)) return undefined;
  const retype = advice({ kind: 'retype', value: 'digits', cell: true }, readers);
  const digits = text.replace(/\D/g, '').length;
  if (Math.abs(cell.value) >= 1e15)
    return `is a number cell of ${digits} digits, and a spreadsheet keeps only 15: the digits after the 15th became 0: ${retype}`;
  if (field === 'phone')
    return `is a number cell, which cannot keep a leading + or 0: ${advice({ kind: 'retype', value: 'phone', cell: true }, readers)}`;
  const country = row.countryOf(id);
  const expected = lengthLost(field, country, digits);
  const ofDigits = `is a number cell of ${digits} digit${digits === 1 ? '' : 's'}`;
  if (expected !== undefined && /^\d+$/.test(text) && digits < expected.digits) {
    const lost = expected.digits - digits;
    return `${ofDigits}, and ${expected.what} has ${expected.digits}: the spreadsheet dropped ${lost === 1 ? 'a leading zero' : `${lost} leading zeros`}: ${retype}`;
  }
  if (DIGIT_FIELDS.has(field) && !cell.byFormat && !keepsEveryDigit(field, country, text))
    return `${ofDigits}, which may have lost leading zeros: ${retype}`;
  return undefined;
}

/**
 * A postal code typed as text, all digits, shorter than every code of its country: a CSV saved after a spreadsheet
 * read the column as numbers. Not certain how it happened, so said as what it looks like.
 */
function shortPostcode(id: number, field: string, text: string, row: RowCells, fix: Fixes) {
  if ((field !== 'postcode' && field !== 'postalCode') || !/^\d+$/.test(text)) return undefined;
  const expected = lengthLost(field, row.countryOf(id), text.length);
  // One or two zeros gone (Boston's 02139, Rome's 00100); a code far shorter is some other mistake.
  const missing = expected === undefined ? 0 : expected.digits - text.length;
  if (expected === undefined || missing < 1 || missing > 2) return undefined;
  return `has ${text.length} digits, and ${expected.what} has ${expected.digits}: looks like a leading zero was lost: ${fix.digits}`;
}

function damageOf(field: string, text: string, fix: Fixes): string | undefined {
  if (NUMBER_LIKE.has(field) && /^[+-]?\d+(?:[.,]\d+)?E[+-]?\d+$/i.test(text)) {
    return `was turned into a number by the spreadsheet, which kept only its first digits: ${fix.digits}`;
  }
  const six = SIX_DIGITS[field];
  if (six && /^\d{5}$/.test(text.replace(/[\s-]/g, ''))) {
    return `has 5 digits, ${six} has 6: looks like a leading zero was lost: ${fix.digits}`;
  }
  if (field === 'phone' && /^[1-9]\d{9,14}$/.test(text)) {
    return `has no leading + and country code, as when a spreadsheet turns +12175550100 into the number 12175550100: ${fix.phone}`;
  }
  if (field === 'dateOfBirth' && /^\d{5}(?:\.\d+)?$/.test(text)) {
    return `looks like a spreadsheet's date number (days since 1900): ${fix.date}`;
  }
  return undefined;
}

/**
 * Which date formats read a date written in another order, as far as its numbers tell: `31/12/1980` is written day
 * first, `12/31/1980` month first, `05/06/1980` either way. Said after the value's shape, so whoever reads results.csv
 * (and the report, which groups the rows by it) learns how to read the column (`--date-format` at a terminal, the
 * page's date format), while the date stays unseen.
 */
export function howDateReads(text: string): Extract<Hint, { kind: 'date-order' }> | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const order = (written: string, ...formats: string[]) => ({ kind: 'date-order' as const, written, formats });
  const yearFirst = /^\d{4}([./-])\d{1,2}\1\d{1,2}$/.exec(text);
  if (yearFirst) return order('year first', `YYYY${yearFirst[1]}MM${yearFirst[1]}DD`);
  const yearLast = /^(\d{1,2})([./-])(\d{1,2})\2\d{4}$/.exec(text);
  if (!yearLast) return undefined;
  const first = Number(yearLast[1]);
  const second = Number(yearLast[3]);
  const sep = yearLast[2]!;
  const dayFirst = `DD${sep}MM${sep}YYYY`;
  const monthFirst = `MM${sep}DD${sep}YYYY`;
  const month = (n: number) => n >= 1 && n <= 12;
  const day = (n: number) => n >= 1 && n <= 31;
  if (month(first) && month(second)) return order('day or month first', dayFirst, monthFirst);
  if (day(first) && month(second)) return order('day first', dayFirst);
  if (month(first) && day(second)) return order('month first', monthFirst);
  return undefined;
}

/** `12/31/1980` read as MM/DD/YYYY -> `1980-12-31`; undefined when the text is not written that way. Any of `/.-` separates. */
export function readDate(text: string, format: DateFormat): string | undefined {
  const tokens = format.split(/[./-]/);
  const parts = text.trim().split(/[./-]/);
  if (parts.length !== 3 || tokens.length !== 3) return undefined;
  const byToken: Record<string, string> = {};
  for (let i = 0; i < 3; i++) {
    const token = tokens[i]!;
    const part = parts[i]!;
    if (!(token === 'YYYY' ? /^\d{4}$/ : /^\d{1,2}$/).test(part)) return undefined;
    byToken[token] = part.padStart(2, '0');
  }
  return `${byToken.YYYY}-${byToken.MM}-${byToken.DD}`;
}
