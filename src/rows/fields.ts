import { complianceRequest, paymentDetailRequest } from '../core/schemas.js';

// The field catalog: every column an input file may have, by its canonical name (for a request field, the API's
// own). Header matching, validation and the `template` command all read from here, so a new field is added
// once (the request fields themselves come from the spec's schemas in src/schema/).

/** Compliance request fields (POST /v1/payer), in the API's documented order: read off its schema, not restated. */
export const PAYER_FIELDS = Object.keys(complianceRequest.shape) as PayerField[];
export type PayerField = keyof typeof complianceRequest.shape;

/** The fields the spec requires (the schema's non-optional ones). */
export const REQUIRED_PAYER_FIELDS: readonly PayerField[] = PAYER_FIELDS.filter(
  (f) => !complianceRequest.shape[f].safeParse(undefined).success,
);

/** Payment detail request fields (POST /v2/payer/{clientUserId}/payment-details), in the API's documented order. */
export const PAYMENT_DETAIL_FIELDS = Object.keys(paymentDetailRequest.shape) as PaymentDetailField[];
export type PaymentDetailField = keyof typeof paymentDetailRequest.shape;

export const REQUIRED_PAYMENT_DETAIL_FIELDS: readonly PaymentDetailField[] = PAYMENT_DETAIL_FIELDS.filter(
  (f) => !paymentDetailRequest.shape[f].safeParse(undefined).success,
);

/** Fields only a bank account has: any of them filled on a payer row means "this row has a bank account". */
export const BANK_ONLY_FIELDS = [
  'bankName',
  'accountName',
  'currency',
  'accountNumber',
  'routingNumber',
  'rails',
  'sortCode',
  'iban',
  'swiftBic',
  'documentNumber',
  'documentType',
  'accountType',
  'ribNumber',
  'bsbNumber',
  'ncc',
  'branchCode',
  'bankCode',
  'ifsc',
] as const satisfies readonly PaymentDetailField[];

/**
 * Payment-detail fields that a payer row fills from the payer's own value, and the `bank` + field column
 * that overrides it (the account holder's address may differ from the payer's, e.g. a business account).
 */
export const SHARED_FIELDS = [
  { field: 'beneficiaryType', payerField: 'beneficiaryType', override: 'bankBeneficiaryType' },
  { field: 'addressLine1', payerField: 'addressLine1', override: 'bankAddressLine1' },
  { field: 'addressLine2', payerField: 'addressLine2', override: 'bankAddressLine2' },
  { field: 'city', payerField: 'city', override: 'bankCity' },
  { field: 'state', payerField: 'state', override: 'bankState' },
  { field: 'country', payerField: 'country', override: 'bankCountry' },
  { field: 'dateOfBirth', payerField: 'dateOfBirth', override: 'bankDateOfBirth' },
  { field: 'postalCode', payerField: 'postcode', override: 'bankPostalCode' },
] as const satisfies readonly { field: PaymentDetailField; payerField: PayerField; override: string }[];
export type OverrideColumn = (typeof SHARED_FIELDS)[number]['override'];
export const OVERRIDE_COLUMNS: readonly OverrideColumn[] = SHARED_FIELDS.map((s) => s.override);

/**
 * Columns that steer the run rather than feed a request. `completedSteps` and `error` are the two columns a
 * failed-rows file adds; fed back in, `completedSteps` skips those calls and `error` is ignored.
 */
export const CONTROL_COLUMNS = ['agreementCompleted', 'completedSteps', 'error'] as const;

/** JSONL only: one payment-detail object, or an array of them, nested in the payer's line. */
export const PAYMENT_DETAILS_KEY = 'paymentDetails';

/** Values never echoed in a message, not even their shape: identity and bank numbers. */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([
  'ssn',
  'accountNumber',
  'iban',
  'routingNumber',
  'documentNumber',
]);

/**
 * Identifiers written in digits that may start with 0 (a phone, with +), not amounts: a number, in a spreadsheet or
 * in JSON, holds no leading zero, so only text can be trusted to carry every digit. A `bank*` column overriding one
 * (`bankPostalCode`) counts as its field.
 */
export const DIGIT_FIELDS: ReadonlySet<string> = new Set([
  'accountNumber',
  'routingNumber',
  'sortCode',
  'bsbNumber',
  'ifsc',
  'ncc',
  'branchCode',
  'bankCode',
  'ribNumber',
  'iban',
  'documentNumber',
  'ssn',
  'postcode',
  'postalCode',
  'phone',
]);

/**
 * Personal values that may not reach results.csv or a log either, but whose mistakes are found by
 * seeing what was typed: a message shows their shape only, digits as 9 and letters as a (`31/12/1980` -> `99/99/9999`).
 */
export const PERSONAL_FIELDS: ReadonlySet<string> = new Set(['dateOfBirth', 'email', 'phone']);

/**
 * Every column of a payer file in documented order, for `template`: payer fields, bank-only fields, the bank
 * overrides, then `agreementCompleted`. `completedSteps` and `error` are left out: the tool writes them, a person does not.
 */
export const TEMPLATE_COLUMNS: string[] = [
  ...PAYER_FIELDS,
  ...BANK_ONLY_FIELDS,
  ...OVERRIDE_COLUMNS,
  'agreementCompleted',
];

const EXAMPLE_VALUES: Record<string, string> = {
  clientUserId: 'payer-0001',
  email: 'jane.doe@example.com',
  firstName: 'Jane',
  lastName: 'Doe',
  beneficiaryType: 'individual',
  dateOfBirth: '1985-04-12',
  addressLine1: '123 Main Street',
  city: 'Springfield',
  state: 'IL',
  postcode: '62701',
  country: 'US',
  nationality: 'US',
  phone: '+12175550100',
  ssn: '123-45-6789',
  addressLine2: 'Apt 4B',
  sourceOfFunds: 'salary',
  bankName: 'Example Bank',
  accountName: 'Jane Doe',
  currency: 'USD',
  accountNumber: '000123456789',
  routingNumber: '021000021',
  rails: 'local',
  accountType: 'checking',
  // Blank: the payer signs the agreement on their page. A team that collected the signature writes yes or the day.
  agreementCompleted: '',
};

/** One valid US row, a value (possibly blank) for every template column. A test checks that it validates. */
export const TEMPLATE_EXAMPLE: Record<string, string> = Object.fromEntries(
  TEMPLATE_COLUMNS.map((column) => [column, EXAMPLE_VALUES[column] ?? '']),
);

/**
 * A payer row calls the postal code `postcode` (compliance); a bank row calls it `postalCode` (payment detail).
 * `Zip` means whichever the file has.
 */
export const SAME_FIELD: ReadonlyMap<string, string> = new Map([
  ['postcode', 'postalCode'],
  ['postalCode', 'postcode'],
]);
