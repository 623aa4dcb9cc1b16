// A server's words go into results.csv, run.log, report.html, the failed file and summary.json. A server may quote
// what it holds of the payer, sent by this call or by another one, in its own spelling ("ssn 123 45 6789", the key in
// lower case or base64-encoded), so a request's exact values are not enough: every personal value of the row is cut
// out in any spelling, the key in any case or encoded, and anything shaped like personal data, whoever it belongs to.
// It runs only on a failure's text: a row that succeeds never pays for it.

/** Where a row's personal values are: its request bodies, nested as they are. */
export type PersonalData = readonly unknown[];

const REDACTED = '[redacted]';
/** What is kept of a server's words: enough to say what went wrong, not a page of HTML. */
const MAX_LENGTH = 300;
/**
 * Only this much of a body is scanned. Scrubbing comes before the cut to MAX_LENGTH, so no value is cut in two
 * there and half of it kept.
 */
const MAX_SCANNED = 4096;

/** Values that are codes rather than personal data: echoing them back helps the reader and leaks nothing. */
const NOT_PERSONAL = new Set([
  'clientUserId',
  'beneficiaryType',
  'rails',
  'accountType',
  'currency',
  'country',
  'nationality',
  'agreementCompleted',
  'documentType',
]);

/** What people and servers put between the parts of a number, a name or a key. */
const SEPARATORS = /[\s./()+_-]/u;
const BETWEEN = '[\\s./()+_-]*';
/** Shorter values ("IL", "Al") would cut ordinary words out of every message. */
const MIN_UNITS = 3;
/** A value this long is not a word of a message: it is cut out even where it is part of a longer one. */
const UNBOUNDED_UNITS = 8;

/**
 * Anything shaped like personal data, whoever's it is: an e-mail address, a phone number (a `+` and 7 or more
 * digits), a run of 8 or more digits with single spaces or dashes between groups (card and account numbers; an SSN's
 * 3-2-4 digits are such a run). A UUID is an id the reader needs (a userId), not personal: it is matched first so
 * that its digit groups are kept.
 */
const SHAPES = new RegExp(
  [
    '(?<![\\p{L}\\p{N}])([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\\p{L}\\p{N}])',
    `[^\\s@"'<>(),;:]+@[^\\s@"'<>(),;:]+\\.[a-z]{2,}`,
    '\\+[\\s(]*\\d(?:[\\s().-]*\\d){6,}',
    '\\d(?:[ -]?\\d){7,}',
  ].join('|'),
  'giu',
);

/**
 * A server's text made safe to write anywhere: the row's personal values (`personal`: its request bodies) in any
 * spelling and the key in any case or base64-encoded cut out, then anything shaped like personal data, on one line
 * and at most 300 characters. Undefined for no text or nothing left.
 */
export function scrubServerText(text: string | undefined, personal: PersonalData, apiKey: string): string | undefined {
  if (text === undefined) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
  let out = text.slice(0, MAX_SCANNED).replace(/[\u0000-\u001f\u007f]+/g, ' ');
  const encoded = encodedKey(apiKey);
  if (encoded.length > 0)
    out = out.replace(BASE64_WORD, (word) => {
      const standard = word.replace(/-/g, '+').replace(/_/g, '/');
      return encoded.some((form) => standard.includes(form)) ? REDACTED : word;
    });
  const own = ownValues(personal, apiKey);
  if (own !== undefined) out = out.replace(own, REDACTED);
  out = out.replace(SHAPES, (_match, uuid: string | undefined) => uuid ?? REDACTED).trim();
  if (out.length > MAX_LENGTH) out = `${out.slice(0, MAX_LENGTH - 1)}…`;
  return out === '' ? undefined : out;
}

/** A run of base64 or base64url characters long enough to hold a key, with its padding. */
const BASE64_WORD = /[A-Za-z0-9+/_-]{8,}={0,2}/g;

/**
 * The key as a server may echo it encoded (an HTTP Basic header it was sent as, `key:` or `user:key`, or any text
 * holding it), as the base64 characters that stand for the key's bytes alone: a key starts at one of three places in
 * a group of three bytes, and at each, the groups it fills are the same whatever comes before or after it. A word of
 * a server's text holding one of them is cut out whole; too short a key has none that would not match chance text.
 */
function encodedKey(apiKey: string): string[] {
  const bytes = Buffer.from(apiKey);
  const forms: string[] = [];
  for (const shift of [0, 1, 2]) {
    const groups = Math.floor((shift + bytes.length) / 3);
    // Past the first group when the key starts inside it (it holds bits of what came before), up to the last whole one.
    const form = Buffer.concat([Buffer.alloc(shift), bytes])
      .toString('base64')
      .slice(shift === 0 ? 0 : 4, groups * 4);
    if (form.length >= UNBOUNDED_UNITS) forms.push(form);
  }
  return forms;
}

/** One pattern for every spelling of the row's values and the key; undefined when there is none. */
function ownValues(personal: PersonalData, apiKey: string): RegExp | undefined {
  const spellings = new Set<string>();
  for (const value of [apiKey, ...stringsOf(personal)]) for (const form of forms(value)) spellings.add(form);
  const all = [...spellings]
    .map((form) => [...form].filter((c) => !SEPARATORS.test(c)))
    .filter((units) => units.length >= MIN_UNITS)
    // Longest first: an alternation takes the first that matches, and a value holding a shorter one goes whole.
    .sort((a, b) => b.length - a.length);
  if (all.length === 0) return undefined;
  const pattern = (list: string[][]) => list.map((units) => units.map(escapeUnit).join(BETWEEN)).join('|');
  // A short value only on its own ("Ann", not the start of "Announcement"); a long one (the key, an account number)
  // wherever it is, even glued to a word ("Bearer" + key). A leading + or ( goes with the number.
  const long = all.filter((units) => units.length >= UNBOUNDED_UNITS);
  const short = all.filter((units) => units.length < UNBOUNDED_UNITS);
  const alternatives = [
    ...(long.length > 0 ? [`[+(]?(?:${pattern(long)})`] : []),
    ...(short.length > 0 ? [`(?<![\\p{L}\\p{N}])[+(]?(?:${pattern(short)})(?![\\p{L}\\p{N}])`] : []),
  ];
  return new RegExp(alternatives.join('|'), 'giu');
}

/**
 * The spellings of a value beyond its separators: a date of birth as 1985-12-10, 12/10/1985, 10.12.1985 or
 * 19851210 (and without the zeros, 1/5/1985); a phone number without its country code as well.
 */
function forms(value: string): string[] {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (date !== null) {
    const [, y, m, d] = date as unknown as [string, string, string, string];
    const out: string[] = [];
    for (const [mm, dd] of [
      [m, d],
      [String(Number(m)), String(Number(d))],
    ] as const)
      out.push(`${y}${mm}${dd}`, `${mm}${dd}${y}`, `${dd}${mm}${y}`);
    return out;
  }
  const digits = value.replace(/[\s().-]/g, '');
  // The national part of an international number (+1 217 555 0100 written 217-555-0100).
  if (/^\+\d{11,}$/.test(digits)) return [value, digits.slice(-10)];
  return [value];
}

function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (!NOT_PERSONAL.has(key)) stringsOf(item, out);
  }
  return out;
}

function escapeUnit(unit: string): string {
  return unit.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
