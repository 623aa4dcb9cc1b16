import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/apiError.js';
import { idempotencyKey } from '../../src/plan/identity.js';
import { API_KEY, complianceBody, paymentDetailBody, testClient } from '../helpers/executeFixtures.js';
import {
  complianceAnswer,
  nestError,
  sequence,
  startScriptedServer,
  type Hit,
  type ScriptedServer,
} from '../helpers/scriptedServer.js';
import { deferred } from '../helpers/waitFor.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const meta = (body = complianceBody()) => ({
  clientUserId: body.clientUserId,
  idempotencyKey: idempotencyKey('compliance', body.clientUserId, body),
});

describe('api client: what is retried', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i and then succeeds', async (status) => {
    server = await startScriptedServer(
      sequence({ status, body: nestError(status, 'try again') }, { status: 200, body: complianceAnswer() }),
    );
    const client = testClient(server.url);
    const result = await client.createCompliance(complianceBody(), meta());
    expect(result).toEqual({
      ok: true,
      status: 200,
      body: {
        userId: complianceAnswer().userId,
        agreementUrl: complianceAnswer().agreementUrl,
        kycUrl: complianceAnswer().kycUrl,
        agreementStatus: 'not_started',
        kycStatus: 'not_started',
      },
    });
    expect(server.hits).toHaveLength(2);
    expect(client.stats()).toEqual({ requests: 2, byStatus: { [String(status)]: 1, '200': 1 }, retries: 1 });
  });

  it.each([
    [
      400,
      nestError(400, 'Invalid bank account details', 'Bad Request'),
      'compliance: HTTP 400 Invalid bank account details',
    ],
    [
      400,
      nestError(400, ['email must be an email', 'phone must be a valid phone number'], 'Bad Request'),
      'compliance: HTTP 400 email must be an email; phone must be a valid phone number',
    ],
    [
      400,
      { message: 'Validation failed', errors: [{ field: 'postcode', message: 'postcode is required' }] },
      'compliance: HTTP 400 postcode: postcode is required',
    ],
    [
      400,
      {
        statusCode: 400,
        message: [
          { code: 'invalid_string', message: 'Invalid email', path: ['email'] },
          { code: 'too_small', message: 'Required', path: ['paymentDetails', 0, 'iban'] },
          { code: 'custom', message: 'Payer cannot be created', path: [] },
          { code: 'invalid_enum_value', path: 'beneficiaryType' },
          'and one said in words',
          {},
        ],
        error: 'Bad Request',
      },
      'compliance: HTTP 400 email: Invalid email; paymentDetails.0.iban: Required; Payer cannot be created; ' +
        'beneficiaryType: invalid_enum_value; and one said in words',
    ],
    [400, { statusCode: 400, message: [{ path: ['email'] }] }, 'compliance: HTTP 400 Bad Request'],
    [422, {}, 'compliance: HTTP 422 Unprocessable Entity'],
    [409, 'already there', 'compliance: HTTP 409 already there'],
  ])('does not retry %i, and reports the server message', async (status, body, message) => {
    server = await startScriptedServer(sequence({ status, body }));
    const client = testClient(server.url);
    const result = await client.createCompliance(complianceBody(), meta());
    expect(server.hits).toHaveLength(1);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(ApiError);
    expect(result.error).toMatchObject({
      code: 'E_API',
      step: 'compliance',
      kind: 'http',
      status,
      retryable: false,
      message,
    });
    expect(client.stopped()).toBeUndefined();
  });

  it("a 404 on create compliance is a wrong address, not a row's fault: the client stops (API down, exit 3)", async () => {
    server = await startScriptedServer(
      sequence({ status: 404, body: nestError(404, 'Cannot POST /api/v1/payer', 'Not Found') }),
    );
    const client = testClient(server.url);
    const result = await client.createCompliance(complianceBody(), meta());
    expect(server.hits).toHaveLength(1);
    expect(result).toMatchObject({ ok: false, error: { status: 404 } });
    expect(client.stopped()).toEqual({
      reason: 'api-down',
      message: `stopped: create compliance answered HTTP 404 Cannot POST /api/v1/payer at ${server.url}: check --base-url and --compliance-path`,
    });
  });

  it('gives up after `retries` retries with the last error', async () => {
    server = await startScriptedServer(sequence({ status: 503, body: nestError(503, 'Service Unavailable') }));
    const client = testClient(server.url, { retries: 3 });
    const result = await client.readPaymentDetails('payer-001');
    expect(server.hits).toHaveLength(4);
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'http', status: 503, retryable: true, message: 'payment-details: HTTP 503 Service Unavailable' },
    });
    expect(client.stats().retries).toBe(3);
  });

  it.each([
    ['a 500', { status: 500, body: nestError(500, 'Internal server error') }],
    ['a reset', { reset: true }],
  ] as const)(
    'never sends a bank account twice blindly: %s comes back at once, for a read to settle',
    async (_name, first) => {
      server = await startScriptedServer(
        sequence(first, {
          status: 201,
          body: {
            payment_detail: {
              id: 'pd_2',
              clientUserId: 'payer-001',
              bankName: 'B',
              accountName: 'A',
              currency: 'USD',
              beneficiaryType: 'individual',
            },
          },
        }),
      );
      const client = testClient(server.url, { retries: 3 });
      const result = await client.createPaymentDetail('payer-001', paymentDetailBody(), { idempotencyKey: 'po-x' });
      expect(server.hits).toHaveLength(1);
      expect(result.ok).toBe(false);
      // Not a sign of an API down: a 500 is also how the KYC gate refuses.
      expect(client.stopped()).toBeUndefined();
    },
  );

  it('retries a bank account answered 429: the service said it did nothing', async () => {
    server = await startScriptedServer(
      sequence(
        { status: 429, body: nestError(429, 'Too Many Requests') },
        {
          status: 201,
          body: {
            payment_detail: {
              id: 'pd_3',
              clientUserId: 'payer-001',
              bankName: 'B',
              accountName: 'A',
              currency: 'USD',
              beneficiaryType: 'individual',
            },
          },
        },
      ),
    );
    const client = testClient(server.url);
    const result = await client.createPaymentDetail('payer-001', paymentDetailBody(), { idempotencyKey: 'po-x' });
    expect(result).toEqual({ ok: true, status: 201, body: { id: 'pd_3' } });
    expect(server.hits).toHaveLength(2);
  });

  it('reads: a 404 is an answer (not registered), not a failure', async () => {
    server = await startScriptedServer(
      sequence({ status: 404, body: nestError(404, 'Payer with client user ID payer-001 not found') }),
    );
    const client = testClient(server.url);
    expect(await client.readPayer('payer-001')).toEqual({ ok: true, status: 404, body: { found: false } });
    expect(server.hits.map((h) => `${h.method} ${h.path}`)).toEqual(['GET /v2/payer/payer-001']);
  });

  it('retries the PATCH of the agreement too', async () => {
    server = await startScriptedServer(sequence({ status: 502 }, { status: 200, body: { success: true } }));
    const client = testClient(server.url);
    const result = await client.completeAgreement('payer 001/x', { agreementCompleted: true });
    expect(result).toEqual({ ok: true, status: 200, body: { success: true } });
    expect(server.hits.map((h) => `${h.method} ${h.path}`)).toEqual([
      'PATCH /v2/payer/payer%20001%2Fx',
      'PATCH /v2/payer/payer%20001%2Fx',
    ]);
    expect(server.hits[1]?.body).toEqual({ agreementCompleted: true });
  });

  it('retries a reset connection', async () => {
    server = await startScriptedServer(sequence({ reset: true }, { status: 200, body: { success: true } }));
    const client = testClient(server.url);
    const result = await client.completeAgreement('payer-001', { agreementCompleted: true });
    expect(result).toEqual({ ok: true, status: 200, body: { success: true } });
    expect(server.hits).toHaveLength(2);
    expect(client.stats().byStatus).toEqual({ network: 1, '200': 1 });
  });

  it('reports a connection that keeps being reset as a network error', async () => {
    server = await startScriptedServer(sequence({ reset: true }));
    const client = testClient(server.url, { retries: 2 });
    const result = await client.completeAgreement('payer-001', { agreementCompleted: true });
    expect(server.hits).toHaveLength(3);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('network');
    expect(result.error.message).toMatch(/^agreement: network error (ECONNRESET|EPIPE)$/);
    expect(result.error.retryable).toBe(true);
    expect(result.error.cause).toBeInstanceOf(Error);
  });

  it('reports a refused connection after retrying it, once the API has answered before', async () => {
    // (Refused before anything ever answered is an API out of reach: execute-unreachable.test.ts.)
    server = await startScriptedServer(sequence({ status: 200, body: { success: true } }));
    const url = server.url;
    const client = testClient(url, { retries: 1 });
    expect((await client.completeAgreement('payer-001', { agreementCompleted: true })).ok).toBe(true);
    await server.close();
    server = undefined;
    const result = await client.completeAgreement('payer-001', { agreementCompleted: true });
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'network', networkCode: 'ECONNREFUSED', message: 'agreement: network error ECONNREFUSED' },
    });
    expect(client.stats()).toEqual({ requests: 3, byStatus: { '200': 1, network: 2 }, retries: 1 });
    expect(client.stopped()).toBeUndefined();
  });

  it('times out an attempt after timeoutMs and retries it', async () => {
    server = await startScriptedServer(
      sequence({ hang: 10_000, body: complianceAnswer() }, { status: 200, body: complianceAnswer() }),
    );
    // Long enough for the second answer to beat it on a loaded machine, or that attempt would time out too.
    const client = testClient(server.url, { timeoutMs: 1000 });
    const result = await client.createCompliance(complianceBody(), meta());
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
    expect(client.stats().byStatus).toEqual({ timeout: 1, '200': 1 });
  });

  it('reports a call that always times out, once the API has answered before', async () => {
    // Half a second a try: on a busy machine the first, answered call must not time out too.
    server = await startScriptedServer((hit) =>
      hit.n === 0 ? { status: 200, body: complianceAnswer() } : { hang: 3000 },
    );
    const client = testClient(server.url, { timeoutMs: 500, retries: 1 });
    expect((await client.createCompliance(complianceBody('payer-000'), meta(complianceBody('payer-000')))).ok).toBe(
      true,
    );
    const result = await client.createCompliance(complianceBody(), meta());
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'timeout', retryable: true, message: 'compliance: timed out after 0.5 s' },
    });
    expect(server.hits).toHaveLength(3);
    expect(client.stopped()).toBeUndefined();
  });

  it('sends the same Idempotency-Key on every retry, and the x-api-key on every request', async () => {
    server = await startScriptedServer(
      sequence({ status: 500 }, { reset: true }, { status: 503 }, { status: 200, body: complianceAnswer() }),
    );
    const client = testClient(server.url);
    const body = complianceBody();
    const result = await client.createCompliance(body, meta(body));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(4);
    const keys = new Set(server.hits.map((h) => h.headers['idempotency-key']));
    expect([...keys]).toEqual([idempotencyKey('compliance', 'payer-001', body)]);
    expect(server.hits.every((h) => h.headers['x-api-key'] === API_KEY)).toBe(true);
    expect(server.hits.every((h) => h.method === 'POST' && h.path === '/v2/payer')).toBe(true);
    expect(server.hits.every((h) => JSON.stringify(h.body) === JSON.stringify(body))).toBe(true);
  });

  it('sends values exactly as given (no number coercion)', async () => {
    server = await startScriptedServer(sequence({ status: 201, body: { payment_detail: { id: 'pd_9' } } }));
    const client = testClient(server.url);
    await client.createPaymentDetail('payer-001', paymentDetailBody('007'), { idempotencyKey: 'po-x' });
    expect(server.hits[0]?.body).toMatchObject({ routingNumber: '021000021', accountNumber: '007' });
    expect(server.hits[0]?.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('api client: Retry-After and 429', () => {
  it('honours Retry-After in seconds and pauses every call, not only the one that got the 429', async () => {
    let first = true;
    server = await startScriptedServer((hit) => {
      if (hit.path === '/v2/payer' && first) {
        first = false;
        return { status: 429, body: nestError(429, 'Too Many Requests'), headers: { 'retry-after': '1' } };
      }
      return { status: 200, body: complianceAnswer(), delayMs: 0 };
    });
    const client = testClient(server.url, { concurrency: 1 });
    const a = client.createCompliance(complianceBody(), meta());
    const b = client.completeAgreement('payer-001', { agreementCompleted: true });
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.ok && rb.ok).toBe(true);
    const [h429, ...rest] = server.hits;
    expect(h429?.path).toBe('/v2/payer');
    expect(rest).toHaveLength(2);
    // Lower bounds only: the pause can make calls later, never earlier.
    for (const hit of rest) expect(hit.at - (h429?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('honours Retry-After as an HTTP date', async () => {
    // Second precision: between 0.5 and 1.5 s after the 503 arrived, however late the request was sent.
    const when = (hit: Hit) => new Date(hit.at + 1500).toUTCString();
    server = await startScriptedServer((hit) =>
      hit.n === 0 ? { status: 503, headers: { 'retry-after': when(hit) } } : { status: 200, body: { success: true } },
    );
    const client = testClient(server.url);
    const result = await client.completeAgreement('payer-001', { agreementCompleted: true });
    expect(result.ok).toBe(true);
    const [h1, h2] = server.hits;
    expect((h2?.at ?? 0) - (h1?.at ?? 0)).toBeGreaterThanOrEqual(400);
  });

  it('without Retry-After, a 429 pauses every call by the backoff delay (at least baseMs)', async () => {
    let first = true;
    server = await startScriptedServer((hit) => {
      if (first) {
        first = false;
        return { status: 429, body: nestError(429, 'ThrottlerException: Too Many Requests') };
      }
      return hit.method === 'PATCH'
        ? { status: 200, body: { success: true } }
        : { status: 200, body: complianceAnswer() };
    });
    const throttled = deferred();
    const client = testClient(server.url, {
      backoff: { baseMs: 300, maxMs: 300 },
      random: () => 0,
      onAttempt: (attempt) => {
        if (attempt.status === 429) throttled.resolve();
      },
    });
    const first429 = client.createCompliance(complianceBody(), meta());
    await throttled.promise; // the 429 is in and the pause set; now another call starts
    const other = client.completeAgreement('payer-001', { agreementCompleted: true });
    expect((await first429).ok && (await other).ok).toBe(true);
    const h429 = server.hits[0];
    const patch = server.hits.find((h) => h.method === 'PATCH');
    expect(server.hits).toHaveLength(3);
    expect(client.limiter.pausedUntil).toBeGreaterThan(0);
    expect((patch?.at ?? 0) - (h429?.at ?? 0)).toBeGreaterThanOrEqual(290);
  });

  it('cuts a huge Retry-After to maxRetryAfterMs', async () => {
    server = await startScriptedServer(
      sequence({ status: 429, headers: { 'retry-after': '86400' } }, { status: 200, body: { success: true } }),
    );
    const client = testClient(server.url, { maxRetryAfterMs: 20 });
    const result = await client.completeAgreement('payer-001', { agreementCompleted: true });
    expect(result.ok).toBe(true);
  });
});

describe('api client: success bodies', () => {
  it('accepts any 2xx and keeps what is usable of a body that does not match the schema', async () => {
    server = await startScriptedServer(
      sequence({ status: 201, body: { userId: 'not-a-uuid', kycUrl: 'https://k.example/1', status: 'weird' } }),
    );
    const client = testClient(server.url);
    const result = await client.createCompliance(complianceBody(), meta());
    expect(result).toEqual({ ok: true, status: 201, body: { userId: 'not-a-uuid', kycUrl: 'https://k.example/1' } });
  });

  it('a 2xx whose body is not JSON is unclear, not done: retried where resending is safe, until the answer is one', async () => {
    server = await startScriptedServer(
      sequence(
        { status: 200, body: '<html>ok</html>', headers: { 'content-type': 'text/html' } },
        { status: 200, body: complianceAnswer() },
      ),
    );
    const client = testClient(server.url);
    const result = await client.createCompliance(complianceBody(), meta());
    expect(result).toMatchObject({ ok: true, status: 200, body: { userId: complianceAnswer().userId } });
    expect(server.hits).toHaveLength(2);
  });

  it('once the API has answered, HTML answers are blips: retried, then an unclear error; the client goes on', async () => {
    const html = { status: 200, body: '<html></html>', headers: { 'content-type': 'text/html' } };
    server = await startScriptedServer((hit) =>
      hit.method === 'GET' ? { status: 200, body: { kycStatus: 'approved', isCompliant: true } } : html,
    );
    const client = testClient(server.url, { retries: 3 });
    expect(await client.readPayer('u-1')).toMatchObject({ ok: true, body: { found: true, isCompliant: true } });
    const result = await client.createCompliance(complianceBody(), meta());
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'unclear', message: "compliance: answered 200 text/html, not the API's answer" },
    });
    expect(server.hitsTo('POST', '/v2/payer')).toHaveLength(4);
    expect(client.stopped()).toBeUndefined();
  });

  it('before any answer of the API, three such answers stop the client as not-the-api', async () => {
    server = await startScriptedServer(() => ({ status: 200, body: '' }));
    const client = testClient(server.url);
    const result = await client.completeAgreement('u-1', { agreementCompleted: true });
    expect(result).toMatchObject({ ok: false, error: { kind: 'stopped' } });
    expect(client.stopped()).toEqual({
      reason: 'not-the-api',
      message: `this does not look like the Payer API at ${server.url}: 200 text/plain with an empty body`,
    });
    expect(server.hits).toHaveLength(3);
  });

  it('a bank account answered 201 with no id is unclear and comes back at once, for a read to settle', async () => {
    server = await startScriptedServer(sequence({ status: 201, body: { ok: true } }));
    const client = testClient(server.url);
    const result = await client.createPaymentDetail('u-1', paymentDetailBody(), { idempotencyKey: 'k' });
    expect(result).toMatchObject({
      ok: false,
      error: {
        kind: 'unclear',
        status: 201,
        message: "payment-details: answered 201 application/json without payment_detail.id, not the API's answer",
      },
    });
    expect(server.hits).toHaveLength(1);
  });

  it('treats a 3xx as a failure and does not follow it (the key would go along)', async () => {
    server = await startScriptedServer((hit) =>
      hit.path === '/v2/payer'
        ? { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }
        : { status: 200 },
    );
    const client = testClient(server.url);
    const result = await client.createCompliance(complianceBody(), meta());
    expect(result).toMatchObject({ ok: false, error: { kind: 'http', status: 302 } });
    expect(server.hits).toHaveLength(1);
  });
});
