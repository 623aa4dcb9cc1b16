import { MAX_CELL_LENGTH } from '../InputFile.js';

/**
 * Characters of one cell's text kept while it is read: past this it is only counted. Excel escapes a character XML
 * cannot hold as `_xHHHH_`, seven for one, so a cell kept whole is never longer than MAX_CELL_LENGTH for that.
 */
export const CELL_TEXT_LIMIT = 7 * MAX_CELL_LENGTH;

/**
 * Excel writes characters XML cannot hold (and a literal `_x` sequence) as `_xHHHH_`: `_x000D_` is a carriage
 * return, `_x005F_` an underscore.
 */
export const unescapeText = (text: string): string =>
  text.includes('_x')
    ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : text;

/** Excel's date formats use y, m, d (h, s for times); text in quotes and [colour]/[locale] parts do not count. */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhs]/i.test(
    format
      .replace(/\[[^\]]*]/g, '')
      .replace(/"[^"]*"/g, '')
      .replace(/\\./g, ''),
  );
}

const DAY_MS = 86_400_000;
// 1899-12-31 is day 0 of the 1900 system; 1904-01-01 is day 0 of the 1904 system.
const DAY0_1900 = Date.UTC(1899, 11, 31);
const DAY0_1904 = Date.UTC(1904, 0, 1);

/**
 * A date cell's serial number as the calendar day the sheet shows, `YYYY-MM-DD`. The 1900 system counts the
 * 29 February 1900 that never was (Lotus's mistake, kept by Excel): serial 60 is that day, and every later serial
 * is one day ahead of a plain count. The time of day, the fraction, does not change the day.
 */
export function serialDate(serial: number, date1904: boolean): string {
  if (!Number.isFinite(serial) || serial < 0) return String(serial);
  const days = Math.floor(serial + 1e-9);
  if (!date1904 && days === 60) return '1900-02-29';
  const time = date1904 ? DAY0_1904 + days * DAY_MS : DAY0_1900 + (days > 60 ? days - 1 : days) * DAY_MS;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? String(serial) : date.toISOString().slice(0, 10);
}

/**
 * What a cell style's number format means for the text of a number: a date, digits padded and fixed as a format of
 * only zeros (`00000`, `000000000`, `0.00`) asks, or neither. Worked out once per style, not once
 * per cell.
 */
export interface NumberFormat {
  date: boolean;
  /** The zeros before and after the point of a zeros-only format. */
  padded: { whole: number; decimals: number } | undefined;
}

export function numberFormat(format: string | undefined): NumberFormat {
  const padded = /^(0+)(?:\.(0+))?$/.exec(format ?? '');
  return {
    date: isDateFormat(format),
    padded: padded ? { whole: padded[1]!.length, decimals: padded[2]?.length ?? 0 } : undefined,
  };
}

/**
 * Whether a number cell's format says its digits are all meant as shown: a format of zeros that pads this whole
 * number (`000000000000` shows 123456789 as 000123456789). General, `0` or `#,##0` show 000123456789 as 123456789,
 * and so does a padded format narrower than the number, which pads nothing: those say nothing of the zeros the
 * number may have lost. Nor does Text (`@`): a value typed into a Text cell is stored as text, so a number under
 * Text was typed before the column was made Text, and lost its zeros then.
 */
export function showsEveryDigit(value: number, format: NumberFormat): boolean {
  const { padded } = format;
  if (padded === undefined || padded.whole < 2 || padded.decimals > 0) return false;
  return Number.isInteger(value) && value >= 0 && String(value).length <= padded.whole;
}

/**
 * The digits a number cell shows: padded and fixed as Excel would for a zeros-only format; otherwise the number's
 * shortest exact form, in plain digits however large or small.
 */
export function numberText(value: number, format: NumberFormat): string {
  const { padded } = format;
  if (padded) {
    const fixed = plainDigits(Math.abs(value), padded.decimals);
    const [whole = '', fraction] = fixed.split('.');
    const text = whole.padStart(padded.whole, '0') + (fraction === undefined ? '' : `.${fraction}`);
    return value < 0 ? `-${text}` : text;
  }
  // Most number cells are whole numbers of at most 15 digits (an account number, a postcode typed as a number),
  // which print as they are: the rounding below changes none of them.
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  // 15 significant digits is what Excel keeps; it also drops binary noise such as 0.30000000000000004.
  const exact = Number(value.toPrecision(15));
  return plainDigits(exact);
}

function plainDigits(value: number, decimals?: number): string {
  if (decimals !== undefined) return value.toFixed(Math.min(decimals, 100));
  const text = String(value);
  if (!/e/i.test(text)) return text;
  if (Number.isInteger(value)) return BigInt(value).toString();
  return value.toFixed(20).replace(/\.?0+$/, '');
}

/** `B12` -> 1 (column B, counted from 0); undefined for a reference without letters. */
export function columnOfRef(ref: string): number | undefined {
  let column = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const code = ref.charCodeAt(i) & ~32; // upper case
    if (code < 65 || code > 90) break;
    column = column * 26 + (code - 64);
  }
  return i === 0 ? undefined : column - 1;
}
