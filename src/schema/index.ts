export * from './compliance.js';
export * from './paymentDetail.js';
export * from './agreement.js';
export * from './apiError.js';

/** The API's paths, relative to the base URL (api-spec.md "Endpoints"). */
export const paths = {
  compliance: () => 'v1/payer',
  paymentDetails: (clientUserId: string) => `v2/payer/${encodeURIComponent(clientUserId)}/payment-details`,
  agreement: (clientUserId: string) => `v2/payer/${encodeURIComponent(clientUserId)}`,
} as const;
