import { z } from 'zod';
import { beneficiaryType, isoDateFormat, nonEmpty } from './compliance.js';

// Request and response of POST /v2/payer/{clientUserId}/payment-details, as api-spec.md states them.

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
