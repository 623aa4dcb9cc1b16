import { inspect } from 'node:util';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/apiError.js';
import type { ComplianceRequest } from '../../src/core/schemas.js';
import { executeRow } from '../../src/execute/executeRow.js';
import { payerWork } from '../../src/plan/rowState.js';
import {
  API_KEY,
  captureLogger,
  complianceBody,
  paymentDetailBody,
  payerRow,
  rowDeps,
  testClient,
} from '../helpers/executeFixtures.js';
import {
  complianceAnswer,
  nestError,
  sequence,
  startScriptedServer,
  type ScriptedServer,
} from '../helpers/scriptedServer.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every personal value of the fixtures, and the key. */
const SECRETS = [
  API_KEY,
  ...Object.entries(complianceBody())
    .filter(([k]) => !['clientUserId', 'beneficiaryType', 'country', 'nationality'].includes(k))
    .map(([, v]) => v),
  '000123456789',
  '021000021',
  'First Springfield Bank',
];

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text, `leaked ${secret}`).not.toContain(secret);
}

describe('no key and no personal value leaves the client', () => {
  it('in the log at trace level, across successes, retries, server errors that echo the request, resets and timeouts', async () => {
    let n = 0;
    let compliance = 0;
    server = await startScriptedServer((hit) => {
      n += 1;
      if (hit.path === '/v2/payer') {
        compliance += 1;
        return compliance === 1 ? { status: 500 } : { status: 200, body: complianceAnswer() };
      }
      if (hit.method === 'PATCH') return n < 5 ? { reset: true } : { hang: 1500 };
      if (hit.method === 'GET') return { status: 200, body: { paymentDetails: [] } };
      // The server echoes personal values back in its message.
      return {
        status: 400,
        body: nestError(400, [
          `accountNumber 000123456789 is invalid for routing 021000021`,
          `email ada.lovelace@example.com taken`,
          `key ${API_KEY}`,
        ]),
      };
    });
    const { logger, text } = captureLogger('trace');
    const client = testClient(server.url, { logger, retries: 2, timeoutMs: 400 }); // long enough for a loaded machine to answer
    const result = await executeRow(payerWork(payerRow()), rowDeps(client), 'payers.csv:2');
    expect(result.outcome).toBe('failed');
    const log = text();
    expect(log).toContain('"step":"compliance"');
    expect(log).toContain('"clientUserId":"payer-001"');
    expect(log).toContain('"status":500');
    expectNoSecret(log);
    expectNoSecret(JSON.stringify(result.errors));
    expect(result.errors).toContainEqual({
      step: 'payment-details',
      message:
        'HTTP 400 accountNumber [redacted] is invalid for routing [redacted]; email [redacted] taken; key [redacted]',
    });
  });

  it('in a network error, however it is printed or logged (got keeps the key and body in its options)', async () => {
    server = await startScriptedServer(() => ({ reset: true }));
    const client = testClient(server.url, { retries: 0 });
    const result = await client.createPaymentDetail('payer-001', paymentDetailBody(), { idempotencyKey: 'po-x' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const error = result.error;
    expect(error.cause).toBeDefined();
    expectNoSecret(inspect(error, { depth: 8 }));
    expectNoSecret(String(error.stack));
    expectNoSecret(JSON.stringify(error));
    const { logger, text } = captureLogger('trace');
    logger.error({ err: error }, 'call failed');
    expectNoSecret(text());
    expect(text()).toContain('network error');
  });

  it('in a timeout error', async () => {
    // An answer first: a timeout with nothing ever answered stops the client instead (an API out of reach).
    // A timeout of a second, not less: on a busy machine the first, answered call must not time out too.
    server = await startScriptedServer((hit) =>
      hit.n === 0 ? { status: 200, body: { success: true } } : { hang: 3000 },
    );
    const client = testClient(server.url, { retries: 0, timeoutMs: 1000 });
    expect((await client.completeAgreement('payer-001', { agreementCompleted: true })).ok).toBe(true);
    const result = await client.createCompliance(complianceBody(), {
      clientUserId: 'payer-001',
      idempotencyKey: 'po-x',
    });
    if (result.ok) throw new Error('expected a timeout');
    expect(result.error.message).toBe('compliance: timed out after 1 s');
    const chunks: string[] = [];
    pino({ level: 'trace' }, { write: (s: string) => chunks.push(s) }).error({ err: result.error }, 'x');
    expectNoSecret(chunks.join('') + inspect(result.error, { depth: 8 }));
  });
});

describe('ApiError, and the server message it carries', () => {
  it('builds the messages that go into results.csv', () => {
    expect(
      new ApiError({
        step: 'compliance',
        kind: 'http',
        status: 400,
        serverMessage: 'Invalid bank account details',
        retryable: false,
      }).message,
    ).toBe('compliance: HTTP 400 Invalid bank account details');
    expect(new ApiError({ step: 'agreement', kind: 'http', status: 500, retryable: true }).message).toBe(
      'agreement: HTTP 500 Internal Server Error',
    );
    expect(
      new ApiError({ step: 'payment-details', kind: 'network', networkCode: 'ECONNRESET', retryable: true }).message,
    ).toBe('payment-details: network error ECONNRESET');
    expect(new ApiError({ step: 'compliance', kind: 'timeout', timeoutMs: 30_000, retryable: true }).message).toBe(
      'compliance: timed out after 30 s',
    );
    const error = new ApiError({
      step: 'compliance',
      kind: 'stopped',
      stoppedBecause: 'API key rejected',
      retryable: false,
    });
    expect(error).toMatchObject({
      name: 'ApiError',
      code: 'E_API',
      exitCode: 1,
      message: 'compliance: not sent, API key rejected',
    });
  });

  it('cuts request values and the key out of a server message, keeps codes, and bounds it to one line', async () => {
    // The client sends a body as it is given: values nested in it are cut out too.
    const body = {
      clientUserId: 'payer-9',
      ssn: '987-65-4321',
      country: 'US',
      beneficiaryType: 'business',
      nested: { iban: 'DE89370400440532013000' },
    } as unknown as ComplianceRequest;
    server = await startScriptedServer(
      sequence(
        {
          status: 400,
          body: nestError(400, 'ssn 987-65-4321 bad for payer-9 (US, business)\nDE89370400440532013000 KEY'),
        },
        { status: 400, body: nestError(400, 'uses KEY-123') },
        {
          status: 400,
          body: {
            statusCode: 400,
            message: [
              { code: 'invalid', message: 'DE89370400440532013000 taken, key KEY-123', path: ['nested', 'iban'] },
            ],
          },
        },
        { status: 400 },
        { status: 400, body: nestError(400, 'x'.repeat(1000)) },
      ),
    );
    const client = testClient(server.url, { apiKey: 'KEY-123', retries: 0 });
    const failure = async () => {
      const result = await client.createCompliance(body, { clientUserId: 'payer-9', idempotencyKey: 'po-x' });
      if (result.ok) throw new Error('expected a 400');
      return result.error;
    };
    const echoed = await failure();
    expect(echoed.serverMessage).toBe('ssn [redacted] bad for payer-9 (US, business) [redacted] KEY');
    expect(echoed.message).toBe('compliance: HTTP 400 ssn [redacted] bad for payer-9 (US, business) [redacted] KEY');
    expect((await failure()).serverMessage).toBe('uses [redacted]');
    // An issue's words and its path, from a message given as objects, are cut the same.
    expect((await failure()).serverMessage).toBe('nested.iban: [redacted] taken, key [redacted]');
    const silent = await failure();
    expect(silent.serverMessage).toBeUndefined();
    expect(silent.message).toBe('compliance: HTTP 400 Bad Request');
    expect((await failure()).serverMessage).toHaveLength(300);
    expect(server.hits).toHaveLength(5);
  });
});
