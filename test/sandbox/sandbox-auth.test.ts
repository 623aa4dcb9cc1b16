import { afterEach, describe, expect, it } from 'vitest';
import { call, closeSandboxes, KEY, payer, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

const UNAUTHORIZED = { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' };

describe('sandbox authentication', () => {
  it.each([
    ['POST', '/v1/payer'],
    ['POST', '/v2/payer/payer-1/payment-details'],
    ['PATCH', '/v2/payer/payer-1'],
  ])('%s %s without x-api-key is 401 in NestJS shape', async (method, path) => {
    const sandbox = await start();
    const reply = await call(sandbox, method, path, { body: {}, headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(UNAUTHORIZED);
  });

  it('a wrong key is 401 and creates nothing', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'POST', '/v1/payer', {
      body: payer(),
      headers: { 'x-api-key': `${KEY}x`, 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(UNAUTHORIZED);
    expect(sandbox.payer('payer-1')).toBeUndefined();
    expect(sandbox.stats().payersCreated).toBe(0);
  });

  it('the key is checked before the body: an invalid body without a key is 401, not 400', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'POST', '/v1/payer', {
      body: { nope: 1 },
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(401);
  });

  it('accepts the configured key and uses sandbox-key by default', async () => {
    const sandbox = await start({ apiKey: undefined });
    expect(sandbox.options.apiKey).toBe('sandbox-key');
    const reply = await call(sandbox, 'POST', '/v1/payer', {
      body: payer(),
      headers: { 'x-api-key': 'sandbox-key', 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(200);
  });

  it('the sandbox endpoints need no key', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'GET', '/__sandbox/stats', { headers: {} });
    expect(reply.status).toBe(200);
    expect(reply.body.requests).toBe(0);
  });
});
