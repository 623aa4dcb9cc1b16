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

const TEXT_HINT = 'format the column as text and type the value again';

/** How a damaged value is fixed where it was typed: in a spreadsheet's column, or in a JSONL line. */
interface Fixes {
  digits: string;
  phone: string;
  date: string;
}

const FIXES: Fixes = {
  digits: TEXT_HINT,
  phone: 'format the column as text and type it with the +',
  date: 'format the column as a date, or type YYYY-MM-DD',
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
 * dates are left to the YYYY-MM-DD rule. Values are echoed only as withValue allows.
 */
export function repairSpreadsheetDamage(
  row: RowCells,
  options: { dateFormat?: DateFormat | undefined; json?: boolean | undefined } = {},
): OrderedIssue[] {
  const issues: OrderedIssue[] = [];
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
        problem = `must be YYYY-MM-DD or ${options.dateFormat} (--date-format)`;
    }
    const text = row.text[id]!;
    const cell = row.numberCell(id);
    // A JSONL line has no column to format: its fix is the value written out whole, as the line names its key.
    const fix = options.json ? jsonFix(row.column(id), field) : FIXES;
    problem ??=
      cell === undefined ? shortPostcode(id, field, text, row, fix) : numberCellDamage(id, field, text, cell, row);
    problem ??= damageOf(field, text, fix);
    const reading =
      problem === undefined && field === 'dateOfBirth' && !options.dateFormat ? howDateReads(text) : undefined;
    if (reading !== undefined) problem = 'must be YYYY-MM-DD';
    if (problem === undefined) continue;
    const message = withValue(problem, field, text) + (reading === undefined ? '' : `: ${reading}`);
    issues.push({ column: row.column(id), message, order: row.order(id) });
    row.spoil(id);
  }
  return issues;
}

// The only fields a spreadsheet's damage is looked for in (every other cell is passed over unread).
const DAMAGEABLE: readonly number[] = [...NUMBER_LIKE, 'dateOfBirth', ...Object.keys(AS_FIELD)].map(fieldId);
const NUMBER_CELL_FIX = 'format the column as Text and type the value again';

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
): string | undefined {
  if (!NUMBER_LIKE.has(field)) return undefined;
  const digits = text.replace(/\D/g, '').length;
  if (Math.abs(cell.value) >= 1e15)
    return `is a number cell of ${digits} digits, and a spreadsheet keeps only 15: the digits after the 15th became 0: ${NUMBER_CELL_FIX}`;
  if (field === 'phone')
    return 'is a number cell, which cannot keep a leading + or 0: format the column as Text and type the number with + and its country code';
  const country = row.countryOf(id);
  const expected = lengthLost(field, country, digits);
  const ofDigits = `is a number cell of ${digits} digit${digits === 1 ? '' : 's'}`;
  if (expected !== undefined && /^\d+$/.test(text) && digits < expected.digits) {
    const lost = expected.digits - digits;
    return `${ofDigits}, and ${expected.what} has ${expected.digits}: the spreadsheet dropped ${lost === 1 ? 'a leading zero' : `${lost} leading zeros`}: ${NUMBER_CELL_FIX}`;
  }
  if (DIGIT_FIELDS.has(field) && !cell.byFormat && !keepsEveryDigit(field, country, text))
    return `${ofDigits}, which may have lost leading zeros: ${NUMBER_CELL_FIX}`;
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
 * Which `--date-format` reads a date written in another order, as far as its numbers tell: `31/12/1980` is written day
 * first, `12/31/1980` month first, `05/06/1980` either way. Said after the value's shape, so whoever reads results.csv
 * (and the report, which groups the rows by it) learns the option that reads the column, while the date stays unseen.
 */
export function howDateReads(text: string): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const yearFirst = /^\d{4}([./-])\d{1,2}\1\d{1,2}$/.exec(text);
  if (yearFirst) return `written year first, --date-format YYYY${yearFirst[1]}MM${yearFirst[1]}DD reads it`;
  const yearLast = /^(\d{1,2})([./-])(\d{1,2})\2\d{4}$/.exec(text);
  if (!yearLast) return undefined;
  const first = Number(yearLast[1]);
  const second = Number(yearLast[3]);
  const sep = yearLast[2]!;
  const dayFirst = `DD${sep}MM${sep}YYYY`;
  const monthFirst = `MM${sep}DD${sep}YYYY`;
  const month = (n: number) => n >= 1 && n <= 12;
  const day = (n: number) => n >= 1 && n <= 31;
  if (month(first) && month(second))
    return `written day or month first, --date-format ${dayFirst} or ${monthFirst} reads it`;
  if (day(first) && month(second)) return `written day first, --date-format ${dayFirst} reads it`;
  if (month(first) && day(second)) return `written month first, --date-format ${monthFirst} reads it`;
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
