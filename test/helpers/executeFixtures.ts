import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { createApiClient } from '../../src/execute/createApiClient.js';
import { PayerTurns, type RowDeps } from '../../src/execute/executeRow.js';
import { idempotencyKey } from '../../src/plan/identity.js';
import type { ApiClient, ApiClientOptions } from '../../src/execute/ApiClient.js';
import type { ComplianceRequest, PaymentDetailRequest } from '../../src/core/schemas.js';
import { STEPS, type ValidPayerRow } from '../../src/core/types.js';

export const API_KEY = 'sk_test_0123456789abcdefSECRET';

export function complianceBody(clientUserId = 'payer-001'): ComplianceRequest {
  return {
    clientUserId,
    email: 'ada.lovelace@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    beneficiaryType: 'individual',
    dateOfBirth: '1985-12-10',
    addressLine1: '12 Analytical Engine Road',
    city: 'Springfield',
    state: 'IL',
    postcode: '62701',
    country: 'US',
    nationality: 'US',
    phone: '+12175550100',
    ssn: '123-45-6789',
  };
}

export function paymentDetailBody(accountNumber = '000123456789'): PaymentDetailRequest {
  return {
    bankName: 'First Springfield Bank',
    accountName: 'Ada Lovelace',
    beneficiaryType: 'individual',
    currency: 'USD',
    addressLine1: '12 Analytical Engine Road',
    city: 'Springfield',
    country: 'US',
    dateOfBirth: '1985-12-10',
    postalCode: '62701',
    accountNumber,
    routingNumber: '021000021',
    accountType: 'checking',
  };
}

export function payerRow(overrides: Partial<ValidPayerRow> = {}): ValidPayerRow {
  const clientUserId = overrides.clientUserId ?? 'payer-001';
  return {
    ok: true,
    clientUserId,
    compliance: complianceBody(clientUserId),
    paymentDetails: [paymentDetailBody()],
    agreementCompleted: true,
    completedSteps: [],
    ...overrides,
  };
}

/** A client with test-sized waits: no rate cap, tiny backoff, fixed jitter; the rest as a run's defaults. */
export function testClient(url: string, options: Partial<ApiClientOptions> = {}): ApiClient {
  return createApiClient({
    baseUrl: url,
    apiKey: API_KEY,
    compliancePath: '/v2/payer',
    retries: 5,
    concurrency: 8,
    maxConsecutiveFailures: 20,
    rate: 0,
    timeoutMs: 5000,
    backoff: { baseMs: 5, maxMs: 20 },
    random: () => 0.5,
    ...options,
  });
}

/** A pino logger at `level` writing into memory. */
export function captureLogger(level = 'trace'): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { logger: pino({ level }, sink), text: () => chunks.join('') };
}

/** Sends create-compliance for `payer-<i>` with its Idempotency-Key, as a payer row does. */
export function comply(client: ApiClient, i: number) {
  const body = complianceBody(`payer-${i}`);
  return client.createCompliance(body, {
    clientUserId: body.clientUserId,
    idempotencyKey: idempotencyKey('compliance', body.clientUserId, body),
  });
}

/** What executeRow needs for one run without a journal: the client, a first run's plan context, the run's sets. */
export function rowDeps(client: ApiClient): RowDeps {
  return {
    client,
    journal: undefined,
    ctx: {
      steps: [...STEPS],
      compliancePath: '/v2/payer',
      retries: 2,
      maxWaitDays: 30,
      now: new Date(),
      knowledge: { gate: 'unknown' },
      journalWhole: false,
    },
    taken: new Set(),
    created: new Set(),
    turns: new PayerTurns(),
    inDoubt: new Map(),
  };
}
