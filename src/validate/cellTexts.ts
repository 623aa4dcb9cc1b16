import type { FieldCell } from '../rows/columns.js';
import { NumberCell } from '../rows/findData.js';
import { type OrderedIssue, withValue } from './textChecks.js';

/** A filled cell as trimmed text, with the column the user wrote and its place in the row. */
export interface TextCell {
  column: string;
  text: string;
  order: number;
  /** A spreadsheet number cell's number (the text is the digits it showed): where digits may have been lost. */
  number?: number;
}

/** Where a blank cell sits: a required field left blank is reported under its column as written. */
export type CellPlace = Omit<TextCell, 'text'>;

export interface CellTexts {
  texts: Map<string, TextCell>;
  blanks: Map<string, CellPlace>;
  /** Fields whose cell held something that is not text: already reported, so never also "is required". */
  unusable: Set<string>;
  issues: OrderedIssue[];
}

/**
 * CSV cells are strings already. xlsx number cells are read as the digits they show, their number kept beside.
 * JSONL cells may be numbers (turned into their decimal text), booleans (only where a yes/no is meant) or objects
 * and arrays, which no field accepts.
 */
export function cellTexts(byField: ReadonlyMap<string, FieldCell>, booleanFields: ReadonlySet<string>): CellTexts {
  const texts = new Map<string, TextCell>();
  const blanks = new Map<string, CellPlace>();
  const unusable = new Set<string>();
  const issues: OrderedIssue[] = [];
  for (const [field, { column, value, order }] of byField) {
    // A CSV's cells, and most others: text.
    if (typeof value === 'string') {
      const text = value.trim();
      if (text !== '') texts.set(field, { column, text, order });
      else blanks.set(field, { column, order });
      continue;
    }
    if (value instanceof NumberCell) {
      texts.set(field, { column, text: value.shown.trim(), order, number: value.value });
      continue;
    }
    const problem = notText(value, booleanFields.has(field));
    if (problem !== undefined) {
      unusable.add(field);
      issues.push({ column, message: problem, order });
      continue;
    }
    const text = value === undefined || value === null ? '' : String(value).trim();
    if (text !== '') texts.set(field, { column, text, order });
    else blanks.set(field, { column, order });
  }
  return { texts, blanks, unusable, issues };
}

function notText(value: unknown, booleanAllowed: boolean): string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (typeof value) {
    case 'string':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : 'must be text or a number';
    case 'boolean':
      return booleanAllowed ? undefined : `must be text, got ${String(value)}`;
    default:
      return Array.isArray(value) ? 'must be text, got a list' : 'must be text, got an object';
  }
}

/** How `--date-format` says dates are written: YYYY, MM and DD once each, with `/`, `.` or `-` between. */
export const DATE_FORMAT = /^(?=.*YYYY)(?=.*MM)(?=.*DD)(YYYY|MM|DD)([./-])(YYYY|MM|DD)\2(YYYY|MM|DD)$/;
export type DateFormat = string;

// Fields holding numbers that are not amounts: a spreadsheet that read them as numbers damaged them.
const NUMBER_LIKE = new Set([
  'clientUserId',
  'phone',
  'ssn',
  'postcode',
  'postalCode',
  'accountNumber',
  'routingNumber',
  'sortCode',
  'iban',
  'documentNumber',
  'ribNumber',
  'bsbNumber',
  'ncc',
  'branchCode',
  'bankCode',
]);
// The field a `bank*` override column checks as.
const AS_FIELD: Record<string, string> = { bankDateOfBirth: 'dateOfBirth', bankPostalCode: 'postalCode' };
// Codes of a fixed 6 digits, shown by a number cell with 5 when they start with 0.
const SIX_DIGITS: Record<string, string> = { sortCode: 'a sort code', bsbNumber: 'a BSB number' };

const TEXT_HINT = 'format the column as text and type the value again';

/**
 * Names the damage a spreadsheet does before the field rules see the cell, so the message says what
 * happened rather than only what is wrong: `1.21755E+10` "was turned into a number by the spreadsheet", a 5-digit
 * sort code "looks like a leading zero was lost", a phone whose `+` went. A damaged cell is removed from `texts` and
 * added to `unusable`, so it is not also called "required". With `dateFormat`, dates written that way are converted to
 * YYYY-MM-DD in place; other dates are left to the YYYY-MM-DD rule. Values are echoed only as withValue allows.
 */
export function repairSpreadsheetDamage(
  texts: Map<string, TextCell>,
  unusable: Set<string>,
  options: { dateFormat?: DateFormat | undefined } = {},
): OrderedIssue[] {
  const issues: OrderedIssue[] = [];
  for (const [name, cell] of texts) {
    const field = AS_FIELD[name] ?? name;
    let problem: string | undefined;
    if (field === 'dateOfBirth' && options.dateFormat) {
      const iso = readDate(cell.text, options.dateFormat);
      if (iso !== undefined)
        cell.text = iso; // still checked as a real, past date by the field rules
      else if (!/^\d{4}-\d{2}-\d{2}$/.test(cell.text))
        problem = `must be YYYY-MM-DD or ${options.dateFormat} (--date-format)`;
    }
    problem ??=
      cell.number === undefined ? shortPostcode(name, field, cell, texts) : numberCellDamage(name, field, cell, texts);
    problem ??= damageOf(field, cell.text);
    const reading =
      problem === undefined && field === 'dateOfBirth' && !options.dateFormat ? howDateReads(cell.text) : undefined;
    if (reading !== undefined) problem = 'must be YYYY-MM-DD';
    if (problem === undefined) continue;
    const message = withValue(problem, field, cell.text) + (reading === undefined ? '' : `: ${reading}`);
    issues.push({ column: cell.column, message, order: cell.order });
    texts.delete(name);
    unusable.add(name);
  }
  return issues;
}

// Identifiers of a fixed number of digits that may start with 0: a number cell with fewer digits lost them.
const FIXED_DIGITS: Readonly<Record<string, { digits: number; what: string }>> = {
  routingNumber: { digits: 9, what: 'a routing number' },
  ssn: { digits: 9, what: 'an SSN' },
  sortCode: { digits: 6, what: 'a sort code' },
  bsbNumber: { digits: 6, what: 'a BSB number' },
};
// Countries whose postal codes are all digits, of one length, and where some start with 0 (no library lists them).
const POSTCODE_DIGITS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    ['US', 'PR', 'VI', 'GU', 'AS', 'MP', 'DE', 'FR', 'IT', 'ES', 'FI', 'MX', 'MY'].map((c) => [c, 5]),
  ),
  ...Object.fromEntries(['AU', 'NZ', 'NO', 'ZA'].map((c) => [c, 4])),
  JP: 7,
};
const NUMBER_CELL_FIX = 'format the column as Text and type the value again';

/**
 * What a spreadsheet number cell in an identifier column certainly lost: leading zeros (fewer digits than the
 * identifier always has) or digits past the 15th, which a spreadsheet keeps as zeros. A number that could be whole
 * is left to the field's own rules: an account number of 9 digits may well have been typed so.
 */
function numberCellDamage(
  name: string,
  field: string,
  cell: TextCell,
  texts: ReadonlyMap<string, TextCell>,
): string | undefined {
  if (!NUMBER_LIKE.has(field)) return undefined;
  const digits = cell.text.replace(/\D/g, '').length;
  if (Math.abs(cell.number!) >= 1e15)
    return `is a number cell of ${digits} digits, and a spreadsheet keeps only 15: the digits after the 15th became 0: ${NUMBER_CELL_FIX}`;
  if (field === 'phone')
    return 'is a number cell, which cannot keep a leading + or 0: format the column as Text and type the number with + and its country code';
  const expected = FIXED_DIGITS[field] ?? postcodeDigits(name, field, digits, texts);
  if (expected === undefined || !/^\d+$/.test(cell.text) || digits >= expected.digits) return undefined;
  const lost = expected.digits - digits;
  return `is a number cell of ${digits} digit${digits === 1 ? '' : 's'}, and ${expected.what} has ${expected.digits}: the spreadsheet dropped ${lost === 1 ? 'a leading zero' : `${lost} leading zeros`}: ${NUMBER_CELL_FIX}`;
}

/** How many digits a postal code has in the row's country, where all have the same number (a US ZIP+4: 9). */
function postcodeDigits(
  name: string,
  field: string,
  digits: number,
  texts: ReadonlyMap<string, TextCell>,
): { digits: number; what: string } | undefined {
  if (field !== 'postcode' && field !== 'postalCode') return undefined;
  const country = (name === 'bankPostalCode' ? texts.get('bankCountry') : undefined) ?? texts.get('country');
  const code = country?.text.toUpperCase() ?? '';
  // A US ZIP+4 typed as one number has 9 digits when whole.
  if (code === 'US' && digits > 5) return { digits: 9, what: 'a ZIP+4 code' };
  const length = POSTCODE_DIGITS[code];
  return length === undefined ? undefined : { digits: length, what: `a postal code in ${code}` };
}

/**
 * A postal code typed as text, all digits, shorter than every code of its country: a CSV saved after a spreadsheet
 * read the column as numbers. Not certain how it happened, so said as what it looks like.
 */
function shortPostcode(name: string, field: string, cell: TextCell, texts: ReadonlyMap<string, TextCell>) {
  if ((field !== 'postcode' && field !== 'postalCode') || !/^\d+$/.test(cell.text)) return undefined;
  const expected = postcodeDigits(name, field, cell.text.length, texts);
  // One or two zeros gone (Boston's 02139, Rome's 00100); a code far shorter is some other mistake.
  const missing = expected === undefined ? 0 : expected.digits - cell.text.length;
  if (expected === undefined || missing < 1 || missing > 2) return undefined;
  return `has ${cell.text.length} digits, and ${expected.what} has ${expected.digits}: looks like a leading zero was lost: ${TEXT_HINT}`;
}

function damageOf(field: string, text: string): string | undefined {
  if (NUMBER_LIKE.has(field) && /^[+-]?\d+(?:[.,]\d+)?E[+-]?\d+$/i.test(text)) {
    return `was turned into a number by the spreadsheet, which kept only its first digits: ${TEXT_HINT}`;
  }
  const six = SIX_DIGITS[field];
  if (six && /^\d{5}$/.test(text.replace(/[\s-]/g, ''))) {
    return `has 5 digits, ${six} has 6: looks like a leading zero was lost: ${TEXT_HINT}`;
  }
  if (field === 'phone' && /^[1-9]\d{9,14}$/.test(text)) {
    return 'has no leading + and country code, as when a spreadsheet turns +12175550100 into the number 12175550100: format the column as text and type it with the +';
  }
  if (field === 'dateOfBirth' && /^\d{5}(?:\.\d+)?$/.test(text)) {
    return "looks like a spreadsheet's date number (days since 1900): format the column as a date, or type YYYY-MM-DD";
  }
  return undefined;
}

/**
 * Which `--date-format` reads a date written in another order, as far as its numbers tell: `31/12/1980` is written day
 * first, `12/31/1980` month first, `05/06/1980` either way. Said after the value's shape, so whoever reads results.csv
 * (and the report, which groups the rows by it) learns the option that reads the column, while the date stays unseen.
 */
function howDateReads(text: string): string | undefined {
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
