import { z } from 'zod';

// The two reads of the service's public reference (api-spec.md, "Read endpoints"): a payer's compliance status,
// and the bank accounts stored for a payer. Not in the seed document; the client uses them to know what already
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
