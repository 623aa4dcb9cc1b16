export * from './compliance.js';
export * from './paymentDetail.js';
export * from './agreement.js';
export * from './apiError.js';
export * from './reads.js';

/** Where create compliance is served: the seed's path, or the service's current create-or-update path. */
export const COMPLIANCE_PATHS = ['/v1/payer', '/v2/payer'] as const;
export type CompliancePath = (typeof COMPLIANCE_PATHS)[number];

/** The API's paths, relative to the base URL (api-spec.md "Endpoints" and "Read endpoints"). */
export const paths = {
  compliance: (path: CompliancePath = '/v1/payer') => path.slice(1),
  /** GET: the payer's compliance status. PATCH: the agreement. */
  payer: (clientUserId: string) => `v2/payer/${encodeURIComponent(clientUserId)}`,
  /** POST: create a bank account. GET: list the stored ones. */
  paymentDetails: (clientUserId: string) => `v2/payer/${encodeURIComponent(clientUserId)}/payment-details`,
  agreement: (clientUserId: string) => `v2/payer/${encodeURIComponent(clientUserId)}`,
} as const;
