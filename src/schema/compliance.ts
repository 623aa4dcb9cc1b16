import { z } from 'zod';

// Request and response of POST /v1/payer, exactly as api-spec.md states them.
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
