import { afterEach, describe, expect, it } from 'vitest';
import { call, closeSandboxes, createPayer, payer, paymentDetail, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

describe('sandbox stats', () => {
  it('GET /__sandbox/stats and stats() count what happened', async () => {
    const sandbox = await start({ idempotency: 'on', duplicates: 'conflict', kycGate: 'off' });
    await createPayer(sandbox, { clientUserId: 'a' }, { 'idempotency-key': 'a' });
    await createPayer(sandbox, { clientUserId: 'a' }, { 'idempotency-key': 'a' });
    await createPayer(sandbox, { clientUserId: 'a' });
    await call(sandbox, 'POST', '/v2/payer/a/payment-details', { body: paymentDetail() });
    await call(sandbox, 'PATCH', '/v2/payer/a', { body: { agreementCompleted: true } });
    await call(sandbox, 'PATCH', '/v2/payer/a', { body: { agreementCompleted: true } });
    await call(sandbox, 'PATCH', '/v2/payer/zz', { body: { agreementCompleted: true } });
    const overHttp = await call(sandbox, 'GET', '/__sandbox/stats', { headers: {} });
    expect(overHttp.status).toBe(200);
    expect(overHttp.body).toEqual(sandbox.stats());
    expect(overHttp.body).toMatchObject({
      requests: 7,
      payersCreated: 1,
      duplicatePayers: 1,
      paymentDetailsCreated: 1,
      agreementsCompleted: 1,
      agreementUpdates: 2,
      idempotentReplays: 1,
      byStatus: { '200': 4, '201': 1, '404': 1, '409': 1 },
      inFlight: 0,
      maxInFlight: 1,
      arrivalsRetained: 7,
    });
    // All seven within one second, unless the machine was slow between two of them.
    expect(overHttp.body.maxArrivalsPerSecond).toBeGreaterThanOrEqual(1);
    expect(overHttp.body.maxArrivalsPerSecond).toBeLessThanOrEqual(7);
  });

  it('maxInFlight counts requests handled at the same moment', async () => {
    const sandbox = await start({ latencyMs: 300 });
    await Promise.all(Array.from({ length: 5 }, (_, i) => createPayer(sandbox, { clientUserId: `p${i}` })));
    expect(sandbox.stats().maxInFlight).toBe(5);
    expect(sandbox.stats().inFlight).toBe(0);
  });

  it('arrivals: epoch-ms times of API requests, and the most in any window', async () => {
    const sandbox = await start();
    // The sandbox's clock: the process's time origin plus the monotonic clock, which the wall clock (Date.now) drifts
    // from by tens of milliseconds in a long-lived worker, as NTP corrects it.
    const before = performance.timeOrigin + performance.now();
    for (let i = 0; i < 4; i += 1) await createPayer(sandbox, { clientUserId: `p${i}` });
    const arrivals = sandbox.arrivals();
    expect(arrivals).toHaveLength(4);
    expect(arrivals[0]).toBeGreaterThanOrEqual(before);
    expect(Math.abs(arrivals[0]! - Date.now())).toBeLessThan(60_000);
    expect([...arrivals].sort((a, b) => a - b)).toEqual(arrivals);
    expect(sandbox.maxInWindow(60_000)).toBe(4);
    expect(sandbox.maxInWindow(0)).toBe(0);
    const overHttp = await call(sandbox, 'GET', '/__sandbox/arrivals', { headers: {} });
    expect(overHttp.body).toEqual({ arrivals });
  });

  it('the sandbox endpoints are not counted', async () => {
    const sandbox = await start();
    await call(sandbox, 'GET', '/__sandbox/stats', { headers: {} });
    await call(sandbox, 'GET', '/__sandbox/payers/x', { headers: {} });
    expect(sandbox.stats()).toMatchObject({ requests: 0, byStatus: {}, arrivalsRetained: 0, firstArrivalAt: null });
  });

  it('reset() (and POST /__sandbox/reset) forget payers, keys and counters', async () => {
    const sandbox = await start({ idempotency: 'on' });
    const first = await createPayer(sandbox, {}, { 'idempotency-key': 'k' });
    sandbox.reset();
    expect(sandbox.stats()).toMatchObject({ requests: 0, payersCreated: 0, byStatus: {} });
    expect(sandbox.payer('payer-1')).toBeUndefined();
    const again = await createPayer(sandbox, {}, { 'idempotency-key': 'k' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Reseeded too: the same first id as after a restart.
    expect(again.body.userId).toBe(first.body.userId);
    const viaHttp = await call(sandbox, 'POST', '/__sandbox/reset', { headers: {} });
    expect(viaHttp.body).toEqual({ reset: true });
    expect(sandbox.payer('payer-1')).toBeUndefined();
  });

  it('an unknown sandbox endpoint is 404', async () => {
    const sandbox = await start();
    expect((await call(sandbox, 'GET', '/__sandbox/nope', { headers: {} })).status).toBe(404);
  });
});

describe('sandbox stats: routes, reads and the lifecycle', () => {
  it('byRoute names every route (zero included), reads counts the GETs, refused requests included', async () => {
    const sandbox = await start();
    expect(sandbox.stats().byRoute).toEqual({
      compliance: 0,
      'compliance-v1': 0,
      'payment-details': 0,
      agreement: 0,
      'read-payer': 0,
      'read-payment-details': 0,
    });
    await createPayer(sandbox);
    await call(sandbox, 'POST', '/v1/payer', { body: payer() });
    await call(sandbox, 'GET', '/v2/payer/payer-1');
    await call(sandbox, 'GET', '/v2/payer/nobody');
    await call(sandbox, 'GET', '/v2/payer/payer-1/payment-details', { headers: {} }); // 401: still a request to that route
    await call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail() }); // the KYC gate's 500
    await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: true } });
    await call(sandbox, 'GET', '/nowhere');
    expect(sandbox.stats()).toMatchObject({
      requests: 8,
      reads: 3,
      kycRefusals: 1,
      byRoute: {
        compliance: 1,
        'compliance-v1': 1,
        'payment-details': 1,
        agreement: 1,
        'read-payer': 2,
        'read-payment-details': 1,
      },
    });
    sandbox.reset();
    expect(sandbox.stats()).toMatchObject({ reads: 0, kycRefusals: 0, byRoute: { 'read-payer': 0 } });
  });

  it('duplicatePaymentDetails: an account created again with the same currency (any case) and numbers', async () => {
    const sandbox = await start({ kycAfter: 0 });
    await createPayer(sandbox);
    await createPayer(sandbox, { clientUserId: 'other' });
    const add = (overrides: Record<string, unknown>, id = 'payer-1') =>
      call(sandbox, 'POST', `/v2/payer/${id}/payment-details`, { body: paymentDetail(overrides) });
    await add({});
    await add({ currency: 'usd', bankName: 'Another name' }); // the same account
    await add({ accountNumber: '000123456780' }); // another account number
    await add({ routingNumber: undefined }); // a number given once and not the other time: another account
    await add({ currency: 'EUR' });
    await add({}, 'other'); // the same numbers for another payer: not a duplicate of this one's
    expect(sandbox.stats()).toMatchObject({ paymentDetailsCreated: 6, duplicatePaymentDetails: 1 });
    await add({ currency: 'Usd' });
    expect(sandbox.stats().duplicatePaymentDetails).toBe(2);
  });
});
