// The library without its country names in 80 languages (its Node entry registers them all: 1.5 MB kept on the
// heap for the life of the process, which V8 multiplies before collecting). Only the codes are needed here.
import countries from 'i18n-iso-countries/index.js';
import currencyCodes from 'currency-codes';
import { electronicFormatIBAN, isValidBIC, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import { createRequire } from 'node:module';
import type * as Phones from 'libphonenumber-js';
import { PERSONAL_FIELDS, SENSITIVE_FIELDS } from '../rows/fields.js';
import { clientUserIdProblem, showInvisible } from '../core/schemas.js';
import type { z } from 'zod';
import type { Readers } from '../core/advice.js';
import type { RowIssue } from '../core/types.js';

/** A row issue that still knows its cell's place, so a row's issues read in column order. */
export type OrderedIssue = RowIssue & { order: number };

/** A row's issue lists one after the other, most of them empty: without a spread's steps for each. */
export function joinIssues(lists: readonly OrderedIssue[][]): OrderedIssue[] {
  const all: OrderedIssue[] = [];
  for (const list of lists) for (const issue of list) all.push(issue);
  return all;
}

// The client's stricter rules, for values that would certainly fail later, as plain text -> normalised text
// functions. clientSchemas.ts wires them into zod on top of the spec's schemas. Maintained libraries do the
// knowing: ISO lists, IBAN and BIC structure, phone numbering plans.

export type Checked = { ok: true; value: string } | { ok: false; message: string };

const ok = (value: string): Checked => ({ ok: true, value });
const fail = (message: string): Checked => ({ ok: false, message });

const ALPHA2 = new Set(Object.keys(countries.getAlpha2Codes()));
const ISO4217 = new Set(currencyCodes.codes());

/** ISO 3166-1 alpha-2, any case in, upper case out. */
export function checkCountry(text: string): Checked {
  const code = text.toUpperCase();
  return ALPHA2.has(code) ? ok(code) : fail('must be an ISO 3166-1 alpha-2 country code such as US');
}

/**
 * ISO 4217, any case in, lower case out: every example and answer of the service's documents, and its reference app,
 * write `usd`.
 */
export function checkCurrency(text: string): Checked {
  const code = text.toUpperCase();
  return ISO4217.has(code) ? ok(code.toLowerCase()) : fail('must be an ISO 4217 currency code such as USD');
}

/** One segment of the API's paths, and one a person can read: no `.`/`..`, no controls or invisible characters. */
export function checkClientUserId(text: string): Checked {
  const problem = clientUserIdProblem(text);
  return problem === undefined ? ok(text) : fail(problem);
}

/** Enums any case in, lower case out. */
export function checkOneOf(values: readonly string[]): (text: string) => Checked {
  return (text) => {
    const value = text.toLowerCase();
    return values.includes(value) ? ok(value) : fail(`must be one of ${values.join(', ')}`);
  };
}

const NANP = /^\+1[2-9]\d{9}$/;
/** libphonenumber, loaded at the first number that needs it: loading it takes longer than a run's first request. */
let phones: typeof Phones | undefined;
const loadPhones = (): typeof Phones =>
  (phones ??= createRequire(import.meta.url)('libphonenumber-js') as typeof Phones);

/**
 * What people type into E.164: spaces, dashes, dots and parentheses go. For a `+` number,
 * libphonenumber also drops a national trunk prefix written after the country code (`+44 (0)20 ...`).
 * Only the format is the spec's rule, so a well-formed number libphonenumber does not know is kept as typed
 * and left to the spec's E.164 check.
 */
export function toE164(text: string): string {
  const stripped = text.replace(/[\s.()-]/g, '');
  if (!/^\+\d+$/.test(stripped)) return stripped;
  // A North American number (+1, an area code that cannot start with 0 or 1, ten digits) has no trunk prefix to drop
  // and is always possible: libphonenumber would return it unchanged, after 20 µs of finding which of 25 countries.
  if (NANP.test(stripped)) return stripped;
  const parsed = loadPhones().parsePhoneNumberFromString(stripped);
  return parsed?.isPossible() ? parsed.number : stripped;
}

/** A YYYY-MM-DD date (already known to be a real one) that is not after `today` (YYYY-MM-DD too, so strings compare). */
export function checkNotAfter(today: string): (text: string) => Checked {
  return (text) => (text <= today ? ok(text) : fail('must not be in the future'));
}

const ABA_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

/** 9 digits whose ABA checksum holds. Kept exactly as typed: `021000021` stays `021000021`. The value is never echoed. */
export function checkRoutingNumber(text: string): Checked {
  const message = 'must be 9 digits with a valid ABA checksum';
  // A spreadsheet that read the column as a number drops the leading zero; say so, since the value is not shown.
  if (/^\d{8}$/.test(text))
    return fail(
      `${message}; it has 8 digits: looks like a leading zero was lost: format the column as text and type the value again`,
    );
  // What is wrong is said by counts only: the number itself is never shown.
  if (!/^\d{9}$/.test(text)) {
    const others = text.replace(/\d/g, '').length;
    const found = `it has ${text.length - others} digits${others > 0 ? ` and ${others} other character${others > 1 ? 's' : ''}` : ''}`;
    return fail(`${message}; ${found}`);
  }
  const sum = ABA_WEIGHTS.reduce((total, weight, i) => total + weight * Number(text[i]), 0);
  return sum % 10 === 0 ? ok(text) : fail(`${message}; its 9 digits fail the checksum: look for a mistyped digit`);
}

/** Spaces (and dashes) removed, upper case, then country, length, structure and mod-97 by ibantools. Never echoed. */
export function checkIban(text: string): Checked {
  const iban = electronicFormatIBAN(text) ?? '';
  const { valid, errorCodes } = validateIBAN(iban);
  if (valid) return ok(iban);
  const has = (code: ValidationErrorsIBAN) => errorCodes.includes(code);
  const reason = has(ValidationErrorsIBAN.NoIBANCountry)
    ? 'it does not start with a known country code'
    : has(ValidationErrorsIBAN.WrongBBANLength)
      ? 'its length is wrong for its country'
      : has(ValidationErrorsIBAN.WrongBBANFormat)
        ? 'it has characters its country does not allow'
        : 'its check digits do not match (mod-97)';
  return fail(`must be a valid IBAN: ${reason}`);
}

/** 8 or 11 letters/digits, as ibantools reads a BIC; spaces removed, upper case out (banks print it in groups). */
export function checkSwiftBic(text: string): Checked {
  const bic = text.replace(/\s/g, '').toUpperCase();
  return isValidBIC(bic)
    ? ok(bic)
    : fail('must be a SWIFT/BIC code of 8 or 11 letters and digits, such as DEUTDEFF or DEUTDEFF500');
}

const MAX_ECHO = 40;

/**
 * A value as a message quotes it: JSON-quoted (so quotes and newlines stay visible), every other invisible character
 * written as its code point (JSON leaves a U+202E as it is, and it would reorder the message), cut to about 40
 * characters.
 */
export function quoteValue(text: string): string {
  return showInvisible(JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text));
}

/** `31/12/1980` -> `99/99/9999`: enough to see the mistake, nothing of the person. */
function shapeOf(text: string): string {
  return text.replace(/\p{Nd}/gu, '9').replace(/\p{L}/gu, 'a');
}

/** Said after a shape, so that nobody takes `99/99/9999` for what the cell holds, nor wonders why it is not shown. */
export const SHAPE_NOTE = '(masked as personal data: digits shown as 9, letters as a)';

/**
 * `message, got "value"`, except that a message must not leak personal data into results.csv or a log (every row
 * message is logged too): identity and bank numbers (SENSITIVE_FIELDS) are not echoed at all, dates of birth, e-mails
 * and phones (PERSONAL_FIELDS) by their shape, with SHAPE_NOTE after it: `got "99.99.9999" (masked as personal data:
 * digits shown as 9, letters as a)`. Any other field's value is shown by its shape too when it looks like one of those
 * (an `@`, or six digits or more): a row whose columns slipped puts an IBAN under `currency` or an e-mail under
 * `accountType`. On the web page the message is shown beside the cell, whose value is there to see: a shape beside it
 * would only puzzle (`99/99/9999` by `14/07/1982`), so none is given.
 */
export function withValue(message: string, field: string, text: string, readers: Readers = 'terminal'): string {
  if (SENSITIVE_FIELDS.has(field)) return message;
  if (PERSONAL_FIELDS.has(field) || looksPersonal(text))
    return readers === 'page' ? message : `${message}, got ${quoteValue(shapeOf(text))} ${SHAPE_NOTE}`;
  return `${message}, got ${quoteValue(text)}`;
}

function looksPersonal(text: string): boolean {
  return text.includes('@') || (text.match(/\d/g)?.length ?? 0) >= 6;
}

/**
 * Issues from the spec's own schema run over a body the client's rules already passed. The client's rules pipe
 * into the spec's, so this should never fire; if it does, the row still fails with a message rather than
 * a request the API would refuse. Values are not echoed: which field it is cannot be trusted to be harmless.
 */
export function guardIssues(error: z.ZodError, columnOf: (field: string) => string): OrderedIssue[] {
  return error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    return {
      column: columnOf(field),
      message: `does not pass the API's schema: ${issue.message}`,
      order: Number.MAX_SAFE_INTEGER,
    };
  });
}
