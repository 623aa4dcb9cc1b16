import { afterEach, describe, expect, it } from 'vitest';
import { call, closeSandboxes, createPayer, payer, paymentDetail, rawPost, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

describe('sandbox scripted answers', () => {
  it('500 then a normal answer', async () => {
    const sandbox = await start();
    sandbox.script([{ route: 'POST /v2/payer', status: 500 }]);
    expect(sandbox.pendingScript()).toBe(1);
    const first = await createPayer(sandbox);
    expect(first.status).toBe(500);
    expect(first.body).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect(sandbox.payer('payer-1')).toBeUndefined();
    expect((await createPayer(sandbox)).status).toBe(200);
    expect(sandbox.pendingScript()).toBe(0);
    expect(sandbox.stats().scripted).toBe(1);
  });

  it('429 with a given Retry-After (seconds or an HTTP date), then normal', async () => {
    const sandbox = await start();
    const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
    sandbox.script([
      { route: 'compliance', status: 429, retryAfter: 2 },
      { route: 'compliance', status: 429, retryAfter: date },
    ]);
    const a = await createPayer(sandbox);
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('2');
    expect(a.body).toEqual({ statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' });
    expect((await createPayer(sandbox)).headers.get('retry-after')).toBe(date);
    expect((await createPayer(sandbox)).status).toBe(200);
  });

  it('a scripted 429 without retryAfter sends no Retry-After', async () => {
    const sandbox = await start();
    sandbox.script([{ status: 429 }]);
    expect((await createPayer(sandbox)).headers.has('retry-after')).toBe(false);
  });

  it('times repeats a step; steps of other routes wait for their route', async () => {
    const sandbox = await start();
    sandbox.script([
      { route: 'agreement', status: 503, times: 2 },
      { route: 'compliance', status: 502 },
    ]);
    expect((await createPayer(sandbox)).status).toBe(502);
    expect((await createPayer(sandbox)).status).toBe(200);
    const patch = () => call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: true } });
    expect([(await patch()).status, (await patch()).status, (await patch()).status]).toEqual([503, 503, 200]);
  });

  it('a custom body: objects as JSON, strings as text', async () => {
    const sandbox = await start();
    sandbox.script([
      {
        status: 400,
        body: { message: 'Validation failed', errors: [{ field: 'iban', message: 'Invalid bank account details' }] },
      },
      { status: 502, body: '<html>Bad gateway</html>' },
    ]);
    const json = await createPayer(sandbox);
    expect(json.body).toEqual({
      message: 'Validation failed',
      errors: [{ field: 'iban', message: 'Invalid bank account details' }],
    });
    const text = await createPayer(sandbox);
    expect(text.status).toBe(502);
    expect(text.headers.get('content-type')).toContain('text/plain');
    expect(text.body).toBe('<html>Bad gateway</html>');
  });

  it('reset: the socket is destroyed unanswered', async () => {
    const sandbox = await start();
    sandbox.script([{ route: 'compliance', fault: 'reset' }]);
    await expect(rawPost(sandbox, '/v2/payer', payer())).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(sandbox.payer('payer-1')).toBeUndefined();
    expect(await rawPost(sandbox, '/v2/payer', payer())).toBe(200);
  });

  it('commit500: stored, answered 500; with idempotency on, the retry with the same Idempotency-Key gets the success', async () => {
    const sandbox = await start({ idempotency: 'on', duplicates: 'conflict' });
    sandbox.script([{ route: 'compliance', fault: 'commit500' }]);
    const headers = { 'idempotency-key': 'row-1-compliance' };
    const lost = await createPayer(sandbox, {}, headers);
    expect(lost.status).toBe(500);
    const stored = sandbox.payer('payer-1');
    expect(stored).toBeDefined();
    const retry = await createPayer(sandbox, {}, headers);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(stored?.response);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    // Without the key the retry meets the stored payer: a duplicate.
    sandbox.script([{ route: 'compliance', fault: 'commit500' }]);
    await createPayer(sandbox, { clientUserId: 'p2' });
    expect((await createPayer(sandbox, { clientUserId: 'p2' })).status).toBe(409);
  });

  it('commit500 with another status', async () => {
    const sandbox = await start({ kycAfter: 0 });
    await createPayer(sandbox);
    sandbox.script([{ route: 'payment-details', fault: 'commit500', status: 504 }]);
    const reply = await call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail() });
    expect(reply.status).toBe(504);
    expect(sandbox.payer('payer-1')?.paymentDetails).toHaveLength(1);
  });

  it('slow: handled, answered after delayMs', async () => {
    const sandbox = await start();
    sandbox.script([{ fault: 'slow', delayMs: 50 }]);
    expect((await createPayer(sandbox)).status).toBe(200);
  });

  it('a scripted answer is not limited by the rate limit and consumes no random draw', async () => {
    const sandbox = await start({ rateLimit: 1 });
    sandbox.script([{ status: 500 }]);
    expect((await createPayer(sandbox)).status).toBe(500);
    expect((await createPayer(sandbox)).status).toBe(200);
  });

  it('scripts over HTTP: POST /__sandbox/script with an array or { steps }', async () => {
    const sandbox = await start();
    const queued = await call(sandbox, 'POST', '/__sandbox/script', {
      body: [{ route: 'compliance', status: 503 }],
      headers: { 'content-type': 'application/json' },
    });
    expect(queued.body).toEqual({ pending: 1 });
    const more = await call(sandbox, 'POST', '/__sandbox/script', {
      body: { steps: [{ status: 500, times: 2 }] },
      headers: {},
    });
    expect(more.body).toEqual({ pending: 3 });
    expect((await createPayer(sandbox)).status).toBe(503);
  });

  it('rejects malformed steps, over HTTP (400) and from the handle (throws)', async () => {
    const sandbox = await start();
    const bad = await call(sandbox, 'POST', '/__sandbox/script', {
      body: [{ route: 'DELETE /v1/payer', status: 500 }, { times: 2 }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual([
      'steps.0.route: must be *, compliance, compliance-v1, payment-details, agreement, read-payer, read-payment-details or a route like "POST /v2/payer"',
      'steps.1: a step needs a status or a fault',
    ]);
    expect(() => sandbox.script([{ status: 99 }])).toThrow();
    expect(sandbox.pendingScript()).toBe(0);
  });
});
