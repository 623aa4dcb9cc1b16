import type { RAILS } from '../core/schemas.js';
import { PAYER_FIELDS, PAYMENT_DETAIL_FIELDS, type PayerField, type PaymentDetailField } from '../rows/fields.js';
import type { OrderedIssue } from './textChecks.js';

// What the service's reference app refuses before it sends, checked here before anything is sent: the bank fields a
// currency and rails need (the corridors), and what a business payer and a postcode need. The service's OpenAPI
// leaves these fields optional; sent without them, a bank account meets a 400 and a payer a KYC that cannot pass.
// Where the service's documents and the reference app disagree, whatever either shows as valid is accepted.
// The README's table of these rules is written from this file (`npm run docs`), so the two never disagree.

type Rails = (typeof RAILS)[number];
/** Fields any one of which meets the need (`iban` or `accountNumber`). */
type Need = readonly PaymentDetailField[];
/** Needs that must all be met. */
type Way = readonly Need[];

export interface Corridor {
  /** ISO 4217, lower case, as it is sent. */
  currency: string;
  /** The rails it holds for; absent: all. A blank `rails` is `local`, the service's default and the app's. */
  rails?: readonly Rails[];
  /** The ways to meet it: a bank account that meets any one of them is accepted. */
  ways: readonly Way[];
}

export const CORRIDORS: readonly Corridor[] = [
  { currency: 'usd', rails: ['local'], ways: [[['accountNumber'], ['routingNumber']]] },
  { currency: 'usd', rails: ['swift'], ways: [[['swiftBic'], ['iban', 'accountNumber']]] },
  // The reference app asks a wire account for what a local one needs; as an international transfer it needs what a
  // swift one does.
  {
    currency: 'usd',
    rails: ['wire'],
    ways: [
      [['accountNumber'], ['routingNumber']],
      [['swiftBic'], ['iban', 'accountNumber']],
    ],
  },
  { currency: 'eur', ways: [[['iban']]] },
  { currency: 'eur', rails: ['swift'], ways: [[['swiftBic']]] },
  // A local GBP account by sort code and account number, as the service's documents and its reference app show it,
  // or by its IBAN, which a UK bank gives every account and the reference app takes for GBP on swift rails.
  {
    currency: 'gbp',
    rails: ['local', 'wire'],
    ways: [[['sortCode'], ['accountNumber']], [['iban']]],
  },
  { currency: 'gbp', rails: ['swift'], ways: [[['iban'], ['swiftBic']]] },
  { currency: 'inr', ways: [[['accountNumber'], ['swiftBic'], ['ifsc']]] },
];

/**
 * Postcode shapes by country, the reference app's list, compared in upper case (a lower-case `sw1a 1aa` is the same
 * postcode). A country not listed has no shape of its own.
 */
export const POSTCODE_SHAPES: Readonly<Record<string, { shape: RegExp; example: string }>> = {
  US: { shape: /^\d{5}(-\d{4})?$/, example: '12345 or 12345-6789' },
  CA: { shape: /^[A-Z]\d[A-Z][ -]?\d[A-Z]\d$/, example: 'A1A 1A1' },
  MX: { shape: /^\d{5}$/, example: '12345' },
  GB: { shape: /^[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}$/, example: 'AA1 1AA' },
  DE: { shape: /^\d{5}$/, example: '12345' },
  FR: { shape: /^\d{5}$/, example: '12345' },
  IT: { shape: /^\d{5}$/, example: '12345' },
  ES: { shape: /^\d{5}$/, example: '12345' },
  NL: { shape: /^\d{4} ?[A-Z]{2}$/, example: '1234 AB' },
  BE: { shape: /^\d{4}$/, example: '1234' },
  PT: { shape: /^\d{4}-\d{3}$/, example: '1234-123' },
  CH: { shape: /^\d{4}$/, example: '1234' },
  AT: { shape: /^\d{4}$/, example: '1234' },
  JP: { shape: /^\d{3}-\d{4}$/, example: '123-4567' },
  CN: { shape: /^\d{6}$/, example: '123456' },
  IN: { shape: /^\d{6}$/, example: '123456' },
  SG: { shape: /^\d{6}$/, example: '123456' },
  AU: { shape: /^\d{4}$/, example: '1234' },
  NZ: { shape: /^\d{4}$/, example: '1234' },
  BR: { shape: /^\d{5}-\d{3}$/, example: '12345-678' },
  AR: { shape: /^[A-Z]\d{4}[A-Z]{3}$/, example: 'A1234ABC' },
};

/**
 * What a business payer needs. Without `companyName` the row is refused: a business with no name cannot pass KYC.
 * The two others the reference app asks for, but the service's own schema leaves optional and takes the payer
 * without them: the row goes on, with a warning.
 */
export const BUSINESS_NEEDS: readonly { field: PayerField; refused: boolean }[] = [
  { field: 'companyName', refused: true },
  { field: 'sourceOfFunds', refused: false },
  { field: 'businessActivity', refused: false },
];

const NONE: readonly OrderedIssue[] = [];

/** Where an issue about a field sits: the column (as the user wrote it, or the field's name) and its place. */
type Place = (index: number) => { column: string; order: number };

const DETAIL_INDEX = (field: PaymentDetailField) => PAYMENT_DETAIL_FIELDS.indexOf(field);
const CURRENCY = DETAIL_INDEX('currency');
const RAILS_AT = DETAIL_INDEX('rails');

/** A corridor with each field of its ways as its index into a payment detail's values. */
interface Compiled {
  corridor: Corridor;
  ways: (readonly (readonly number[])[])[];
}

// By currency: a row's check is one lookup, and a currency with no corridor costs nothing more.
const BY_CURRENCY: ReadonlyMap<string, readonly Compiled[]> = (() => {
  const map = new Map<string, Compiled[]>();
  for (const corridor of CORRIDORS) {
    const ways = corridor.ways.map((way) => way.map((need) => need.map(DETAIL_INDEX)));
    map.set(corridor.currency, [...(map.get(corridor.currency) ?? []), { corridor, ways }]);
  }
  return map;
})();

/** By PAYMENT_DETAIL_FIELDS index: the fields a corridor reads (currency, rails and every field of its ways). */
export const CORRIDOR_FIELDS: readonly number[] = [
  ...new Set([CURRENCY, RAILS_AT, ...CORRIDORS.flatMap((c) => c.ways.flat(2).map(DETAIL_INDEX))]),
];

/**
 * The issues of one payment detail whose corridor fields all passed their own rules, by PAYMENT_DETAIL_FIELDS index: the
 * bank fields its currency and rails need and it lacks. Empty for a currency without a corridor.
 */
export function corridorIssues(values: readonly (string | undefined)[], place: Place): readonly OrderedIssue[] {
  const compiled = BY_CURRENCY.get(values[CURRENCY] ?? '');
  if (compiled === undefined) return NONE;
  const rails = (values[RAILS_AT] ?? 'local') as Rails;
  let issues: OrderedIssue[] | undefined;
  for (const { corridor, ways } of compiled) {
    if (corridor.rails !== undefined && !corridor.rails.includes(rails)) continue;
    const closest = closestWay(ways, values);
    if (closest < 0) continue;
    // Told by the way closest to being met, with the others as what may be given instead.
    issues ??= [];
    const others = corridor.ways.filter((_, w) => w !== closest).map((way) => wayText(way));
    const what = `${article(corridor.currency)} ${corridor.currency.toUpperCase()} account`;
    const on = corridor.rails === undefined ? '' : ` on ${rails} rails`;
    corridor.ways[closest]!.forEach((need, n) => {
      if (met(ways[closest]![n]!, values)) return;
      const instead = [...need.slice(1), ...others];
      const alternatives = instead.length === 0 ? '' : ` (or ${instead.join(', or ')} instead)`;
      issues!.push({ ...place(DETAIL_INDEX(need[0]!)), message: `is required for ${what}${on}${alternatives}` });
    });
  }
  return issues ?? NONE;
}

/** Whether any field of the need is given. */
function met(need: readonly number[], values: readonly (string | undefined)[]): boolean {
  for (const k of need) if (values[k] !== undefined) return true;
  return false;
}

/** The way with the fewest needs unmet (the first of equals); -1 when one is met. */
function closestWay(ways: Compiled['ways'], values: readonly (string | undefined)[]): number {
  let closest = -1;
  let fewest = Number.POSITIVE_INFINITY;
  for (let w = 0; w < ways.length; w++) {
    let unmet = 0;
    for (const need of ways[w]!) if (!met(need, values)) unmet++;
    if (unmet === 0) return -1;
    if (unmet < fewest) {
      closest = w;
      fewest = unmet;
    }
  }
  return closest;
}

// `an INR account`, `a EUR account` (read as euro).
const article = (currency: string) => (/^[aio]/.test(currency) ? 'an' : 'a');

/** `swiftBic + (iban or accountNumber)`: a way as the README and the messages write it. */
export function wayText(way: Way, code: (field: string) => string = (field) => field): string {
  return way.map((need) => (need.length === 1 ? code(need[0]!) : `(${need.map(code).join(' or ')})`)).join(' + ');
}

const PAYER_INDEX = (field: PayerField) => PAYER_FIELDS.indexOf(field);
const BENEFICIARY_TYPE = PAYER_INDEX('beneficiaryType');
const COUNTRY = PAYER_INDEX('country');
const POSTCODE = PAYER_INDEX('postcode');
const BUSINESS = BUSINESS_NEEDS.map(({ field, refused }) => ({ index: PAYER_INDEX(field), refused }));

/**
 * What a payer's compliance body (values by PAYER_FIELDS index, all of its fields passed) lacks for the reference
 * app: `issues` refuse the row, `warnings` go along with it (the service takes it; a person should look).
 */
export function payerChecks(
  values: readonly (string | undefined)[],
  place: Place,
): { issues: readonly OrderedIssue[]; warnings: readonly OrderedIssue[] } {
  // Most payers are individuals with a postcode of their country's shape: they allocate nothing here.
  let issues: OrderedIssue[] | undefined;
  let warnings: OrderedIssue[] | undefined;
  if (values[BENEFICIARY_TYPE] === 'business') {
    for (const { index, refused } of BUSINESS) {
      if (values[index] !== undefined) continue;
      if (refused) {
        issues ??= [];
        issues.push({ ...place(index), message: 'is required for a business payer' });
      } else {
        warnings ??= [];
        warnings.push({ ...place(index), message: BUSINESS_WARNING });
      }
    }
  }
  const postcode = values[POSTCODE];
  const country = values[COUNTRY];
  const expected = country === undefined ? undefined : POSTCODE_SHAPES[country];
  if (postcode !== undefined && expected !== undefined && !ofShape(expected.shape, postcode)) {
    warnings ??= [];
    warnings.push({
      ...place(POSTCODE),
      message: `does not look like a postcode in ${country} (${expected.example}): check it; the service's reference app refuses it`,
    });
  }
  return { issues: issues ?? NONE, warnings: warnings ?? NONE };
}

/** The postcode as written, or in upper case. */
function ofShape(shape: RegExp, postcode: string): boolean {
  return shape.test(postcode) || shape.test(postcode.toUpperCase());
}

const BUSINESS_WARNING =
  'is blank: the service takes a business payer without it, but its reference app asks for it, and KYC may too';
