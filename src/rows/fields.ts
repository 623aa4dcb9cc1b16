// The field catalog: every column an input file may have, by the name the docs use (design.md §3).
// Header matching, validation and the `template` command all read from here, so a new field is added once
// (the request fields themselves come from the spec's schemas in src/schema/).

import { complianceRequest, paymentDetailRequest } from '../schema/index.js';

/** Compliance request fields (POST /v1/payer), in api-spec.md's order: read off the spec's schema, not restated. */
export const PAYER_FIELDS = Object.keys(complianceRequest.shape) as PayerField[];
export type PayerField = keyof typeof complianceRequest.shape;

/** The fields the spec requires (the schema's non-optional ones). */
export const REQUIRED_PAYER_FIELDS: readonly PayerField[] = PAYER_FIELDS.filter(
  (f) => !complianceRequest.shape[f].safeParse(undefined).success,
);

/** Payment detail request fields (POST /v2/payer/{clientUserId}/payment-details), in api-spec.md's order. */
export const PAYMENT_DETAIL_FIELDS = Object.keys(paymentDetailRequest.shape) as PaymentDetailField[];
export type PaymentDetailField = keyof typeof paymentDetailRequest.shape;

export const REQUIRED_PAYMENT_DETAIL_FIELDS: readonly PaymentDetailField[] = PAYMENT_DETAIL_FIELDS.filter(
  (f) => !paymentDetailRequest.shape[f].safeParse(undefined).success,
);

/** Fields only a bank account has (design.md §3). Any of them filled on a payer row means "this row has a bank account". */
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
export type BankOnlyField = (typeof BANK_ONLY_FIELDS)[number];

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
export type ControlColumn = (typeof CONTROL_COLUMNS)[number];

/** JSONL only: one payment-detail object, or an array of them, nested in the payer's line. */
export const PAYMENT_DETAILS_KEY = 'paymentDetails';

/** Values never echoed in a message, not even their shape (design.md §4): identity and bank numbers. */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([
  'ssn',
  'accountNumber',
  'iban',
  'routingNumber',
  'documentNumber',
]);

/**
 * Personal values that may not reach results.csv or a log either (design.md §10), but whose mistakes are found by
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
  agreementCompleted: 'true',
};

/** One valid US row, a value (possibly blank) for every template column. A test checks that it validates. */
export const TEMPLATE_EXAMPLE: Record<string, string> = Object.fromEntries(
  TEMPLATE_COLUMNS.map((column) => [column, EXAMPLE_VALUES[column] ?? '']),
);
