import { z } from 'zod';

// PATCH /v2/payer/{clientUserId}, as api-spec.md states it.

export const agreementRequest = z.object({ agreementCompleted: z.boolean() });
export type AgreementRequest = z.infer<typeof agreementRequest>;

export const agreementResponse = z.object({ success: z.boolean() }).loose();
export type AgreementResponse = z.infer<typeof agreementResponse>;
