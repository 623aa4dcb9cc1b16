// How many digits an identifier has where that is certain. A number (a spreadsheet's number cell, a JSON number)
// holds no leading zero: with fewer digits than its field always has, it lost some; with exactly as many as the only
// length its field can have for the row, it lost none and is read as shown.

/** A field's one length, and how a message names what has it. */
export interface DigitLength {
  digits: number;
  what: string;
}

// Identifiers of one length whatever the row, which may start with 0. The routing number's is the rule of the field
// (9 digits and the ABA checksum); a sort code's and a BSB number's 6 are what their banks issue.
const FIELD_DIGITS: Readonly<Record<string, DigitLength>> = {
  routingNumber: { digits: 9, what: 'a routing number' },
  ssn: { digits: 9, what: 'an SSN' },
  sortCode: { digits: 6, what: 'a sort code' },
  bsbNumber: { digits: 6, what: 'a BSB number' },
};
// A US SSN has 9 digits, so a number of fewer certainly lost some; but the spec leaves `ssn` any length (a payer
// outside the US gives another id in it), and a number of 9 digits is not taken for one.
const NEVER_TAKEN: ReadonlySet<string> = new Set(['ssn']);

const lengths = (digits: number, countries: readonly string[]) => countries.map((c) => [c, digits] as const);
// Countries whose postal codes are all digits, of one length (a US ZIP+4 aside): the reference app's shapes of plain
// digits, and those this tool knows from the countries' posts (no library lists them).
const POSTCODE_DIGITS: Readonly<Record<string, number>> = Object.fromEntries([
  ...lengths(5, ['US', 'PR', 'VI', 'GU', 'AS', 'MP', 'DE', 'FR', 'IT', 'ES', 'FI', 'MX', 'MY']),
  ...lengths(4, ['AU', 'NZ', 'NO', 'ZA', 'BE', 'CH', 'AT']),
  ...lengths(6, ['CN', 'SG', 'IN']),
  ...lengths(7, ['JP']),
]);
// Of those, the ones where no code starts with 0: a shorter code there was mistyped, not stripped of its zeros.
const NO_ZERO_FIRST: ReadonlySet<string> = new Set(['BE', 'CH', 'AT', 'IN']);

const isPostcode = (field: string) => field === 'postcode' || field === 'postalCode';

/**
 * The length a value of `field` of this many digits must have had, where a shorter one certainly lost leading zeros:
 * the field's own, or a postal code's in `country` (upper case; a US code of more than 5 digits is a ZIP+4 of 9).
 */
export function lengthLost(field: string, country: string, digits: number): DigitLength | undefined {
  if (!isPostcode(field)) return FIELD_DIGITS[field];
  if (country === 'US' && digits > 5) return { digits: 9, what: 'a ZIP+4 code' };
  const length = POSTCODE_DIGITS[country];
  return length === undefined || NO_ZERO_FIRST.has(country)
    ? undefined
    : { digits: length, what: `a postal code in ${country}` };
}

/**
 * Whether a number in `field`, written as `text` (its digits as a spreadsheet shows them, or a JSON number as the
 * line writes it), lost no leading zero: plain digits, as many as the only length the field can have for a row of
 * `country` (upper case, or '' when the row has none). A sign, a fraction or an exponent is never an identifier's.
 */
export function keepsEveryDigit(field: string, country: string, text: string): boolean {
  if (!/^\d+$/.test(text) || NEVER_TAKEN.has(field)) return false;
  const digits = isPostcode(field) ? POSTCODE_DIGITS[country] : FIELD_DIGITS[field]?.digits;
  return digits === text.length;
}
