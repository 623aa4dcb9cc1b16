import { z } from 'zod';
import { pathSegment } from './clientUserId.js';

export { clientUserIdProblem, pathSegment, RouteError, showInvisible } from './clientUserId.js';

// Request and response of POST /v1/payer, exactly as the API's documentation states them.
// The client's stricter rules (real dates, ISO lists, checksums) live in src/validate/, on top of these.

export const BENEFICIARY_TYPES = ['individual', 'business'] as const;
export const beneficiaryType = z.enum(BENEFICIARY_TYPES);

/** YYYY-MM-DD, the spec's format only (whether it is a real date is the client's stricter rule). */
export const isoDateFormat = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD');
/** E.164: a plus, a non-zero first digit, at most 15 digits in all. */
export const e164 = z.string().regex(/^\+[1-9]\d{1,14}$/, 'must be in E.164 format, e.g. +12175550100');
export const nonEmpty = z.string().min(1, 'must not be empty');

export const complianceRequest = z.object({
  clientUserId: nonEmpty,
  email: z.email('must be a valid e-mail address'),
  firstName: nonEmpty,
  lastName: nonEmpty,
  beneficiaryType,
  dateOfBirth: isoDateFormat,
  addressLine1: nonEmpty,
  city: nonEmpty,
  state: nonEmpty,
  postcode: nonEmpty,
  country: z.string().length(2, 'must be exactly 2 characters'),
  nationality: z.string().length(2, 'must be exactly 2 characters'),
  phone: e164,
  ssn: nonEmpty,
  companyName: z.string().optional(),
  addressLine2: z.string().optional(),
  sourceOfFunds: z.string().optional(),
  businessActivity: z.string().optional(),
});
export type ComplianceRequest = z.infer<typeof complianceRequest>;

export const complianceResponse = z
  .object({
    // Status values are opaque strings: the real API has more than the spec's `not_started`.
    status: z.object({ agreementStatus: z.string(), kycStatus: z.string() }).loose(),
    agreementUrl: z.url().optional(),
    kycUrl: z.url().optional(),
    userId: z.uuid().optional(),
  })
  .loose();
export type ComplianceResponse = z.infer<typeof complianceResponse>;

// Request and response of POST /v2/payer/{clientUserId}/payment-details, as the API's documentation states them.

export const RAILS = ['local', 'swift', 'wire'] as const;
export const ACCOUNT_TYPES = ['checking', 'savings'] as const;

export const paymentDetailRequest = z.object({
  bankName: nonEmpty,
  accountName: nonEmpty,
  beneficiaryType,
  currency: z.string().length(3, 'must be exactly 3 characters'),
  addressLine1: nonEmpty,
  city: nonEmpty,
  country: z.string().length(2, 'must be exactly 2 characters'),
  dateOfBirth: isoDateFormat,
  postalCode: nonEmpty,
  accountNumber: z.string().optional(),
  routingNumber: z.string().optional(),
  addressLine2: z.string().optional(),
  state: z.string().optional(),
  rails: z.enum(RAILS).optional(),
  sortCode: z.string().optional(),
  iban: z.string().optional(),
  swiftBic: z.string().optional(),
  documentNumber: z.string().optional(),
  documentType: z.string().optional(),
  accountType: z.enum(ACCOUNT_TYPES).optional(),
  ribNumber: z.string().optional(),
  bsbNumber: z.string().optional(),
  ncc: z.string().optional(),
  branchCode: z.string().optional(),
  bankCode: z.string().optional(),
  ifsc: z.string().optional(),
});
export type PaymentDetailRequest = z.infer<typeof paymentDetailRequest>;

export const paymentDetailResponse = z
  .object({
    payment_detail: z
      .object({
        id: z.string(),
        clientUserId: z.string(),
        bankName: z.string(),
        accountName: z.string(),
        currency: z.string(),
        beneficiaryType,
      })
      .loose(),
  })
  .loose();
export type PaymentDetailResponse = z.infer<typeof paymentDetailResponse>;

// PATCH /v2/payer/{clientUserId}, as the API's documentation states it.

export const agreementRequest = z.object({ agreementCompleted: z.boolean() });
export type AgreementRequest = z.infer<typeof agreementRequest>;

export const agreementResponse = z.object({ success: z.boolean() }).loose();
export type AgreementResponse = z.infer<typeof agreementResponse>;

/** One problem of a request as the service's other v2 operations give it: `{code, message, path}`, path a field or its steps. */
const apiIssue = z
  .object({
    code: z.string().optional(),
    message: z.string().optional(),
    path: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).optional(),
  })
  .loose();

// Error bodies as the real service sends them (its documentation leaves them open): NestJS style, with `message`
// a string, an array of strings or an array of `{code, message, path}` objects, and on a few endpoints
// `{ message, errors: [{ field, message }] }`.
export const apiErrorBody = z
  .object({
    statusCode: z.number().optional(),
    message: z.union([z.string(), z.array(z.union([z.string(), apiIssue]))]).optional(),
    error: z.string().optional(),
    errors: z.array(z.object({ field: z.string().optional(), message: z.string() }).loose()).optional(),
  })
  .loose();
export type ApiErrorBody = z.infer<typeof apiErrorBody>;

/** The server's own words for a failure, whichever of the known shapes it used. */
export function serverMessage(body: unknown): string | undefined {
  const parsed = apiErrorBody.safeParse(body);
  if (!parsed.success) return typeof body === 'string' && body.trim() !== '' ? body.trim() : undefined;
  const { message, errors } = parsed.data;
  if (errors && errors.length > 0) {
    return errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ');
  }
  if (!Array.isArray(message)) return message;
  const texts = message.map(issueText).filter((text) => text !== '');
  return texts.length > 0 ? texts.join('; ') : undefined;
}

/** An issue's words, after the field it is about (`paymentDetails.0.iban: Invalid IBAN`); its code when it has none. */
function issueText(issue: string | z.infer<typeof apiIssue>): string {
  if (typeof issue === 'string') return issue;
  const words = issue.message ?? issue.code ?? '';
  const path = Array.isArray(issue.path) ? issue.path.join('.') : (issue.path ?? '');
  return path === '' || words === '' ? words : `${path}: ${words}`;
}

// The two reads of the service's public API reference: a payer's compliance status, and the bank accounts stored
// for a payer. Not among the three writes first documented; the client uses them to know what already
// exists, the sandbox serves them. Status values are opaque strings, as everywhere.

/** GET /v2/payer/{clientUserId}: 200, or 404 for a payer the service does not know. */
export const payerStatusResponse = z
  .object({
    kycStatus: z.string(),
    agreementStatus: z.string(),
    isCompliant: z.boolean(),
    userId: z.string().optional(),
  })
  .loose();
export type PayerStatusResponse = z.infer<typeof payerStatusResponse>;

/**
 * One stored bank account as GET /v2/payer/{clientUserId}/payment-details lists it. Long numbers may come back
 * masked (only the last 4 digits), currencies in lower case; `status` is `pending`, then `approved` or `failed`.
 */
export const storedPaymentDetail = z
  .object({
    id: z.string(),
    userId: z.string().optional(),
    bankName: z.string().optional(),
    accountName: z.string().optional(),
    beneficiaryType: z.string().optional(),
    accountNumber: z.string().nullish(),
    routingNumber: z.string().nullish(),
    iban: z.string().nullish(),
    sortCode: z.string().nullish(),
    swiftBic: z.string().nullish(),
    currency: z.string().optional(),
    status: z.string().optional(),
    rails: z.string().optional(),
  })
  .loose();
export type StoredPaymentDetail = z.infer<typeof storedPaymentDetail>;

/** GET /v2/payer/{clientUserId}/payment-details: 200, or 404 for an unknown payer. */
export const paymentDetailsListResponse = z.object({ paymentDetails: z.array(storedPaymentDetail) }).loose();
export type PaymentDetailsListResponse = z.infer<typeof paymentDetailsListResponse>;

/**
 * Where create compliance is served: the path first documented (deprecated by the service since), or its current one.
 * Both have the same body and answer, and neither is documented to change what a known payer registered.
 */
export const COMPLIANCE_PATHS = ['/v1/payer', '/v2/payer'] as const;
export type CompliancePath = (typeof COMPLIANCE_PATHS)[number];

/**
 * The API's paths, relative to the base URL, as its documentation gives them. A clientUserId that would not stay one
 * segment of the path (`..`, a control character) throws a RouteError: no URL but the route's own is ever built.
 */
export const paths = {
  compliance: (path: CompliancePath = '/v2/payer') => path.slice(1),
  /** GET: the payer's compliance status. PATCH: the agreement. */
  payer: (clientUserId: string) => `v2/payer/${pathSegment(clientUserId)}`,
  /** POST: create a bank account. GET: list the stored ones. */
  paymentDetails: (clientUserId: string) => `v2/payer/${pathSegment(clientUserId)}/payment-details`,
  agreement: (clientUserId: string) => `v2/payer/${pathSegment(clientUserId)}`,
} as const;
