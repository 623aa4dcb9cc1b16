import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, payer, paymentDetail, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

const key = (k: string) => ({ 'idempotency-key': k });

describe('sandbox Idempotency-Key, off by default as the real service', () => {
  it('off: the header is ignored, a repeat meets the stored payer and a second account is stored', async () => {
    const sandbox = await start({ kycAfter: 0 });
    expect(sandbox.options.idempotency).toBe('off');
    const first = await createPayer(sandbox, {}, key('k1'));
    const again = await createPayer(sandbox, {}, key('k1'));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const send = () =>
      call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail(), extraHeaders: key('pd-1') });
    const a = await send();
    const b = await send();
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.payment_detail.id).not.toBe(a.body.payment_detail.id);
    expect(sandbox.payer('payer-1')?.paymentDetails).toHaveLength(2);
    // A reused key with another body is not refused either: the service never looked at it.
    expect(
      (await call(sandbox, 'POST', '/v2/payer', { body: payer({ clientUserId: 'payer-2' }), extraHeaders: key('k1') }))
        .status,
    ).toBe(200);
    expect(sandbox.stats()).toMatchObject({
      payersCreated: 2,
      duplicatePayers: 1,
      paymentDetailsCreated: 2,
      duplicatePaymentDetails: 1,
      idempotentReplays: 0,
      idempotencyMismatches: 0,
    });
  });
});

describe('sandbox Idempotency-Key, on', () => {
  // The replay mode, with the 409 for a repeat without a key, so each behaviour below shows on its own.
  const startOn = (options: SandboxOptions = {}) =>
    start({ idempotency: 'on', duplicates: 'conflict', kycAfter: 0, ...options });

  it('the same key on the same route replays the first answer without running the handler again', async () => {
    const sandbox = await startOn();
    const first = await createPayer(sandbox, {}, key('k1'));
    const replay = await createPayer(sandbox, {}, key('k1'));
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 0, idempotentReplays: 1 });
  });

  it('replays a 201 payment detail instead of storing a second one', async () => {
    const sandbox = await startOn();
    await createPayer(sandbox);
    const send = () =>
      call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail(), extraHeaders: key('pd-1') });
    const first = await send();
    const again = await send();
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(sandbox.payer('payer-1')?.paymentDetails).toHaveLength(1);
    expect(sandbox.stats()).toMatchObject({ paymentDetailsCreated: 1, idempotentReplays: 1 });
  });

  it('without a key a repeat is a duplicate (409), not a replay', async () => {
    const sandbox = await startOn();
    await createPayer(sandbox);
    expect((await createPayer(sandbox)).status).toBe(409);
    expect(sandbox.stats().idempotentReplays).toBe(0);
  });

  it('a key is scoped to its route: the same key elsewhere is a new operation', async () => {
    const sandbox = await startOn();
    await createPayer(sandbox, { clientUserId: 'a' });
    await createPayer(sandbox, { clientUserId: 'b' });
    const onA = await call(sandbox, 'PATCH', '/v2/payer/a', {
      body: { agreementCompleted: true },
      extraHeaders: key('same'),
    });
    const onB = await call(sandbox, 'PATCH', '/v2/payer/b', {
      body: { agreementCompleted: true },
      extraHeaders: key('same'),
    });
    expect([onA.status, onB.status]).toEqual([200, 200]);
    expect(sandbox.stats()).toMatchObject({ agreementsCompleted: 2, idempotentReplays: 0 });
  });

  it('the same key with a different body is 422, not a silent replay', async () => {
    const sandbox = await startOn();
    await createPayer(sandbox, {}, key('k1'));
    const other = await call(sandbox, 'POST', '/v2/payer', {
      body: payer({ clientUserId: 'payer-2' }),
      extraHeaders: key('k1'),
    });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      statusCode: 422,
      message: 'Idempotency-Key was already used with a different request body',
      error: 'Unprocessable Entity',
    });
    expect(sandbox.payer('payer-2')).toBeUndefined();
    expect(sandbox.stats().idempotencyMismatches).toBe(1);
  });

  it('only successes are remembered: a 404 retried with the same key runs again once the payer exists', async () => {
    const sandbox = await startOn();
    const send = () =>
      call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail(), extraHeaders: key('pd') });
    expect((await send()).status).toBe(404);
    await createPayer(sandbox);
    expect((await send()).status).toBe(201);
    expect(sandbox.stats().idempotentReplays).toBe(0);
  });

  it('invalid bodies are not remembered either', async () => {
    const sandbox = await startOn();
    const bad = await call(sandbox, 'POST', '/v2/payer', { body: payer({ email: 'x' }), extraHeaders: key('k') });
    expect(bad.status).toBe(400);
    const good = await createPayer(sandbox, {}, key('k'));
    expect(good.status).toBe(200);
  });

  it('concurrent requests with one key create once; the others replay', async () => {
    const sandbox = await startOn({ latencyMs: 20 });
    const replies = await Promise.all(Array.from({ length: 4 }, () => createPayer(sandbox, {}, key('k'))));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.userId)).size).toBe(1);
    expect(sandbox.stats()).toMatchObject({ payersCreated: 1, idempotentReplays: 3 });
  });
});
