import { describe, expect, test } from 'vitest';
import type { BankRowResult, PayerRowResult } from '../../src/core/types.js';
import { BANK_ONLY_FIELDS, TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { validateBankRow } from '../../src/validate/validateBankRow.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

// What a bank account's currency and rails need, and what a business payer and a postcode need: checked on a payer
// row's own bank cells, on a JSONL line's paymentDetails entries and on a --bank-details row alike.

const OPTIONS = { defaultAgreementCompleted: true, today: new Date(2024, 5, 15) };
const cells = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => ({ column, value }));

/** The template's US payer with its bank cells left out. */
const PAYER: Record<string, string> = Object.fromEntries(
  Object.entries(TEMPLATE_EXAMPLE).filter(
    ([column, value]) => value !== '' && !(BANK_ONLY_FIELDS as readonly string[]).includes(column),
  ),
);
const HOLDER = { bankName: 'Example Bank', accountName: 'Jane Doe' };

const onPayerRow = (bank: Record<string, string>) => validatePayerRow(cells({ ...PAYER, ...HOLDER, ...bank }), OPTIONS);
const inJsonl = (bank: Record<string, string>) =>
  validatePayerRow(cells({ ...PAYER, paymentDetails: [{ ...HOLDER, ...bank }] }), OPTIONS);
const onBankRow = (bank: Record<string, string>) =>
  validateBankRow(
    cells({
      clientUserId: 'payer-0001',
      ...HOLDER,
      beneficiaryType: 'individual',
      addressLine1: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      country: 'US',
      dateOfBirth: '1985-04-12',
      postalCode: '62701',
      ...bank,
    }),
    OPTIONS,
  );

const issuesOf = (r: PayerRowResult | BankRowResult) => (r.ok ? [] : r.issues);

const ACCOUNT = '000123456789';
const ROUTING = '021000021';
const DE_IBAN = 'DE89370400440532013000';
const GB_IBAN = 'GB82WEST12345698765432';

// Each row of the corridor table, with a bank account that lacks what it needs, and what the row is then told.
const REFUSED: [string, Record<string, string>, { field: string; message: string }[]][] = [
  [
    'USD, rails blank (local)',
    { currency: 'USD', routingNumber: ROUTING },
    [{ field: 'accountNumber', message: 'is required for a USD account on local rails' }],
  ],
  [
    'USD local',
    { currency: 'usd', rails: 'local', accountNumber: ACCOUNT },
    [{ field: 'routingNumber', message: 'is required for a USD account on local rails' }],
  ],
  [
    'USD swift without a BIC',
    { currency: 'USD', rails: 'swift', accountNumber: ACCOUNT },
    [{ field: 'swiftBic', message: 'is required for a USD account on swift rails' }],
  ],
  [
    'USD swift without a number',
    { currency: 'USD', rails: 'swift', swiftBic: 'CHASUS33' },
    [{ field: 'iban', message: 'is required for a USD account on swift rails (or accountNumber instead)' }],
  ],
  [
    'USD wire',
    { currency: 'USD', rails: 'wire', accountNumber: ACCOUNT },
    [
      {
        field: 'routingNumber',
        message: 'is required for a USD account on wire rails (or swiftBic + (iban or accountNumber) instead)',
      },
    ],
  ],
  ['EUR', { currency: 'EUR', accountNumber: ACCOUNT }, [{ field: 'iban', message: 'is required for a EUR account' }]],
  [
    'EUR swift',
    { currency: 'eur', rails: 'swift', iban: DE_IBAN },
    [{ field: 'swiftBic', message: 'is required for a EUR account on swift rails' }],
  ],
  [
    'GBP local without a sort code',
    { currency: 'GBP', accountNumber: '31926819' },
    [{ field: 'sortCode', message: 'is required for a GBP account on local rails (or iban instead)' }],
  ],
  [
    'GBP local with no number',
    { currency: 'GBP', rails: 'local', swiftBic: 'NWBKGB2L' },
    [{ field: 'iban', message: 'is required for a GBP account on local rails (or sortCode + accountNumber instead)' }],
  ],
  [
    'GBP swift',
    { currency: 'GBP', rails: 'swift', sortCode: '60-16-13', accountNumber: '31926819' },
    [
      { field: 'iban', message: 'is required for a GBP account on swift rails' },
      { field: 'swiftBic', message: 'is required for a GBP account on swift rails' },
    ],
  ],
  [
    'INR',
    { currency: 'INR', accountNumber: ACCOUNT, swiftBic: 'SBININBB' },
    [{ field: 'ifsc', message: 'is required for an INR account' }],
  ],
];

// What each corridor accepts, whichever of the ways the service's documents and its reference app show.
const ACCEPTED: [string, Record<string, string>][] = [
  ['USD, rails blank', { currency: 'USD', accountNumber: ACCOUNT, routingNumber: ROUTING }],
  ['USD swift by IBAN', { currency: 'USD', rails: 'swift', swiftBic: 'CHASUS33', iban: DE_IBAN }],
  ['USD swift by account number', { currency: 'USD', rails: 'swift', swiftBic: 'CHASUS33', accountNumber: ACCOUNT }],
  ['USD wire as local', { currency: 'USD', rails: 'wire', accountNumber: ACCOUNT, routingNumber: ROUTING }],
  ['USD wire as swift', { currency: 'USD', rails: 'wire', swiftBic: 'CHASUS33', accountNumber: ACCOUNT }],
  ['EUR', { currency: 'EUR', iban: DE_IBAN }],
  ['EUR wire', { currency: 'EUR', rails: 'wire', iban: DE_IBAN }],
  ['EUR swift', { currency: 'EUR', rails: 'swift', iban: DE_IBAN, swiftBic: 'DEUTDEFF' }],
  ['GBP by sort code', { currency: 'GBP', sortCode: '60-16-13', accountNumber: '31926819' }],
  ['GBP by IBAN', { currency: 'GBP', iban: GB_IBAN }],
  ['GBP swift', { currency: 'GBP', rails: 'swift', iban: GB_IBAN, swiftBic: 'NWBKGB2L' }],
  ['INR', { currency: 'INR', accountNumber: ACCOUNT, swiftBic: 'SBININBB', ifsc: 'SBIN0000001' }],
  ['a currency with no corridor', { currency: 'CHF', bankCode: '00762' }],
];

describe('the corridors: what a currency and rails need', () => {
  test.each(REFUSED)('%s: a payer row is refused, naming the column', (_, bank, expected) => {
    expect(issuesOf(onPayerRow(bank))).toEqual(expected.map(({ field, message }) => ({ column: field, message })));
  });

  test.each(REFUSED)('%s: a JSONL paymentDetails entry is refused, naming its key', (_, bank, expected) => {
    expect(issuesOf(inJsonl(bank))).toEqual(
      expected.map(({ field, message }) => ({ column: `paymentDetails[0].${field}`, message })),
    );
  });

  test.each(REFUSED)('%s: a --bank-details row is refused, naming the column', (_, bank, expected) => {
    expect(issuesOf(onBankRow(bank))).toEqual(expected.map(({ field, message }) => ({ column: field, message })));
  });

  test.each(ACCEPTED)('%s: accepted on every kind of row', (_, bank) => {
    for (const result of [onPayerRow(bank), inJsonl(bank), onBankRow(bank)]) expect(issuesOf(result)).toEqual([]);
  });

  test('a blank cell is named by its column as written; a lone JSONL object by its key without an index', () => {
    const blank = { IBAN: '', 'SWIFT/BIC': '', currency: 'EUR', rails: 'swift', accountNumber: ACCOUNT };
    expect(issuesOf(onPayerRow(blank))).toEqual([
      { column: 'IBAN', message: 'is required for a EUR account' },
      { column: 'SWIFT/BIC', message: 'is required for a EUR account on swift rails' },
    ]);
    const lone = validatePayerRow(cells({ ...PAYER, paymentDetails: { ...HOLDER, currency: 'eur' } }), OPTIONS);
    expect(issuesOf(lone)).toEqual([{ column: 'paymentDetails.iban', message: 'is required for a EUR account' }]);
  });

  test("a field that failed its own rule is told, not the corridor's need of it again", () => {
    expect(issuesOf(onBankRow({ currency: 'EUR', iban: 'DE89370400440532013001' }))).toEqual([
      { column: 'iban', message: 'must be a valid IBAN: its check digits do not match (mod-97)' },
    ]);
    // A currency that is not one names no corridor.
    expect(issuesOf(onBankRow({ currency: 'EURO' }))).toEqual([
      { column: 'currency', message: expect.stringMatching(/^must be an ISO 4217 currency code/) },
    ]);
  });

  test('each entry of a JSONL line is its own account: only the one lacking is named', () => {
    const line = {
      ...PAYER,
      paymentDetails: [
        { ...HOLDER, currency: 'usd', accountNumber: ACCOUNT, routingNumber: ROUTING },
        { ...HOLDER, currency: 'eur', rails: 'swift', iban: DE_IBAN },
      ],
    };
    expect(issuesOf(validatePayerRow(cells(line), OPTIONS))).toEqual([
      { column: 'paymentDetails[1].swiftBic', message: 'is required for a EUR account on swift rails' },
    ]);
  });
});

describe('what a business payer and a postcode need', () => {
  const business = { beneficiaryType: 'business', companyName: 'Acme LLC', sourceOfFunds: 'sales' };

  test('a business payer without companyName is refused, by its blank column as written', () => {
    expect(issuesOf(validatePayerRow(cells({ ...PAYER, ...business, companyName: undefined }), OPTIONS))).toEqual([
      { column: 'companyName', message: 'is required for a business payer' },
    ]);
    expect(
      issuesOf(validatePayerRow(cells({ ...PAYER, ...business, companyName: undefined, Company: ' ' }), OPTIONS)),
    ).toEqual([{ column: 'Company', message: 'is required for a business payer' }]);
    // An individual needs none.
    expect(validatePayerRow(cells(PAYER), OPTIONS).ok).toBe(true);
  });

  test('a business payer without sourceOfFunds or businessActivity goes on, with a warning each', () => {
    const result = validatePayerRow(cells({ ...PAYER, ...business, sourceOfFunds: undefined }), OPTIONS);
    expect(result.ok && result.warnings).toEqual([
      {
        column: 'sourceOfFunds',
        message:
          'is blank: the service takes a business payer without it, but its reference app asks for it, and KYC may too',
      },
      {
        column: 'businessActivity',
        message:
          'is blank: the service takes a business payer without it, but its reference app asks for it, and KYC may too',
      },
    ]);
    const complete = validatePayerRow(cells({ ...PAYER, ...business, businessActivity: 'retail' }), OPTIONS);
    expect(complete.ok && complete.warnings).toBeUndefined();
  });

  test.each([
    ['US', '6270A', 'US (12345 or 12345-6789)'],
    ['US', '62701-12', 'US (12345 or 12345-6789)'],
    ['GB', 'SW1A1AA', 'GB (AA1 1AA)'],
    ['DE', '1011A', 'DE (12345)'],
    ['FR', '750056', 'FR (12345)'],
  ])('a postcode in %s written %s goes on, with a warning that does not echo it', (country, postcode, shape) => {
    const result = validatePayerRow(cells({ ...PAYER, country, Zip: postcode, postcode: undefined }), OPTIONS);
    expect(result.ok && result.warnings).toEqual([
      {
        column: 'Zip',
        message: `does not look like a postcode in ${shape}: check it; the service's reference app refuses it`,
      },
    ]);
  });

  test.each([
    ['US', '62701-1234'],
    ['GB', 'sw1a 1aa'],
    ['NL', '1234 ab'],
    ['IL', '7610001'],
  ])('a postcode in %s written %s is of its shape, or of a country with none', (country, postcode) => {
    const result = validatePayerRow(cells({ ...PAYER, country, postcode }), OPTIONS);
    expect(result.ok && result.warnings).toBeUndefined();
  });

  test('an invalid row is told what refuses it; the warnings wait for a row that is sent', () => {
    const odd = { country: 'GB', postcode: 'SW1A1AA', beneficiaryType: 'business', companyName: 'Acme LLC' };
    const result = validatePayerRow(cells({ ...PAYER, ...odd, email: 'not-an-email' }), OPTIONS);
    expect(issuesOf(result)).toEqual([{ column: 'email', message: expect.stringMatching(/^must be a valid e-mail/) }]);
  });
});

describe('every problem of a row in one round', () => {
  test('a business payer whose postcode fails lacks its company name and its routing number: all told at once', () => {
    const told = issuesOf(
      onPayerRow({
        beneficiaryType: 'business',
        sourceOfFunds: 'revenue',
        businessActivity: 'software',
        postcode: '1234',
        currency: 'USD',
        accountNumber: ACCOUNT,
      }),
    ).map((issue) => issue.column);
    expect(told).toEqual(expect.arrayContaining(['postcode', 'companyName', 'routingNumber']));
  });
});
