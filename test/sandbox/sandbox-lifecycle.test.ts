import { afterEach, describe, expect, it } from 'vitest';
import { call, closeSandboxes, createPayer, paymentDetail, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

const addAccount = (sandbox: Awaited<ReturnType<typeof start>>, id = 'payer-1') =>
  call(sandbox, 'POST', `/v2/payer/${encodeURIComponent(id)}/payment-details`, { body: paymentDetail() });
const readPayer = (sandbox: Awaited<ReturnType<typeof start>>, id = 'payer-1') =>
  call(sandbox, 'GET', `/v2/payer/${encodeURIComponent(id)}`);
const setKyc = (sandbox: Awaited<ReturnType<typeof start>>, id: string, body: unknown) =>
  call(sandbox, 'POST', `/__sandbox/payers/${encodeURIComponent(id)}/kyc`, {
    body,
    headers: { 'content-type': 'application/json' },
  });

describe('sandbox KYC gate: a bank account waits for KYC', () => {
  it('500 by default, as the real service: nothing stored, counted as a KYC refusal', async () => {
    const sandbox = await start();
    expect(sandbox.options.kycGate).toBe('500');
    await createPayer(sandbox);
    const refused = await addAccount(sandbox);
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect(sandbox.payer('payer-1')?.paymentDetails).toEqual([]);
    expect(sandbox.stats()).toMatchObject({
      kycRefusals: 1,
      paymentDetailsCreated: 0,
      byStatus: { '200': 1, '500': 1 },
    });
  });

  it('400 naming KYC with kycGate 400', async () => {
    const sandbox = await start({ kycGate: '400' });
    await createPayer(sandbox);
    const refused = await addAccount(sandbox);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ statusCode: 400, message: 'Payer KYC is not approved', error: 'Bad Request' });
    expect(sandbox.stats()).toMatchObject({ kycRefusals: 1, paymentDetailsCreated: 0 });
  });

  it('off: the account is stored whatever the KYC, as the seed document suggests', async () => {
    const sandbox = await start({ kycGate: 'off' });
    await createPayer(sandbox);
    expect((await addAccount(sandbox)).status).toBe(201);
    expect(sandbox.payer('payer-1')).toMatchObject({
      kycStatus: 'not_started',
      paymentDetails: [{ status: 'pending' }],
    });
    expect(sandbox.stats()).toMatchObject({ kycRefusals: 0, paymentDetailsCreated: 1 });
  });

  it('an unknown payer is still 404 first, not a refusal', async () => {
    const sandbox = await start();
    const reply = await addAccount(sandbox, 'nobody');
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe('User with ID nobody not found');
    expect(sandbox.stats().kycRefusals).toBe(0);
  });

  it('once KYC is approved the same request is accepted', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    expect((await addAccount(sandbox)).status).toBe(500);
    sandbox.setKyc('payer-1', 'approved');
    expect((await addAccount(sandbox)).status).toBe(201);
    sandbox.setKyc('payer-1', 'rejected');
    expect((await addAccount(sandbox)).status).toBe(500);
    expect(sandbox.stats()).toMatchObject({ kycRefusals: 2, paymentDetailsCreated: 1 });
  });
});

describe('sandbox KYC and agreement statuses', () => {
  it('a new payer is not_started on both; the create answer, a repeat and the read say the same', async () => {
    const sandbox = await start();
    const created = await createPayer(sandbox);
    expect(created.body.status).toEqual({ agreementStatus: 'not_started', kycStatus: 'not_started' });
    const read = await readPayer(sandbox);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      kycStatus: 'not_started',
      agreementStatus: 'not_started',
      isCompliant: false,
      userId: created.body.userId,
    });
    expect(sandbox.payer('payer-1')).toMatchObject({ kycStatus: 'not_started', agreementStatus: 'not_started' });
  });

  it('compliant only with KYC approved and the agreement completed', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    sandbox.setKyc('payer-1', 'approved');
    expect((await readPayer(sandbox)).body).toMatchObject({
      kycStatus: 'approved',
      agreementStatus: 'not_started',
      isCompliant: false,
    });
    await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: true } });
    expect((await readPayer(sandbox)).body).toMatchObject({
      kycStatus: 'approved',
      agreementStatus: 'completed',
      isCompliant: true,
    });
    expect((await createPayer(sandbox)).body.status).toEqual({ agreementStatus: 'completed', kycStatus: 'approved' });
    // The handle keeps the answer given at creation; its statuses now are beside it.
    expect(sandbox.payer('payer-1')).toMatchObject({
      response: { status: { agreementStatus: 'not_started', kycStatus: 'not_started' } },
      kycStatus: 'approved',
      agreementStatus: 'completed',
    });
  });

  it('kycAfter 0: approved at creation, the create answer already says so', async () => {
    const sandbox = await start({ kycAfter: 0 });
    const created = await createPayer(sandbox);
    expect(created.body.status).toEqual({ agreementStatus: 'not_started', kycStatus: 'approved' });
    expect((await addAccount(sandbox)).status).toBe(201);
  });

  it('kycAfter S: approved S seconds after creation, by the clock when the payer is next touched', async () => {
    let now = 1_700_000_000_000;
    const sandbox = await start({ kycAfter: 30, now: () => now });
    await createPayer(sandbox);
    now += 29_999;
    expect((await readPayer(sandbox)).body.kycStatus).toBe('not_started');
    expect((await addAccount(sandbox)).status).toBe(500);
    now += 1;
    expect((await readPayer(sandbox)).body.kycStatus).toBe('approved');
    expect((await addAccount(sandbox)).status).toBe(201);
  });

  it('kycAfter with a real clock and a fraction of a second', async () => {
    const sandbox = await start({ kycAfter: 0.05 });
    await createPayer(sandbox);
    await expect
      .poll(async () => (await readPayer(sandbox)).body.kycStatus, { interval: 20, timeout: 30_000 })
      .toBe('approved');
  });

  it('a status set by the admin route stays: kycAfter does not approve a rejected payer', async () => {
    let now = 0;
    const sandbox = await start({ kycAfter: 10, now: () => now });
    await createPayer(sandbox);
    sandbox.setKyc('payer-1', 'rejected');
    now += 60_000;
    expect((await readPayer(sandbox)).body.kycStatus).toBe('rejected');
  });
});

describe('POST /__sandbox/payers/{clientUserId}/kyc and handle.setKyc', () => {
  it("sets any of the service's KYC statuses, needs no key and is not counted", async () => {
    const sandbox = await start();
    await createPayer(sandbox, { clientUserId: 'a/b' });
    for (const kycStatus of ['initiated', 'pending', 'retry_required', 'failed', 'approved']) {
      const reply = await setKyc(sandbox, 'a/b', { kycStatus });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ clientUserId: 'a/b', kycStatus, agreementStatus: 'not_started' });
      expect(sandbox.payer('a/b')?.kycStatus).toBe(kycStatus);
    }
    expect((await readPayer(sandbox, 'a/b')).body.kycStatus).toBe('approved');
    expect(sandbox.stats()).toMatchObject({ requests: 2, byRoute: { compliance: 1, 'read-payer': 1 } });
  });

  it('400 for a status the service does not have, 404 for an unknown payer', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    const bad = await setKyc(sandbox, 'payer-1', { kycStatus: 'done' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual([
      'kycStatus must be one of the following values: not_started, initiated, pending, approved, rejected, failed, retry_required',
    ]);
    expect((await setKyc(sandbox, 'payer-1', {})).status).toBe(400);
    expect((await setKyc(sandbox, 'payer-1', '{"kycStatus":')).status).toBe(400);
    const unknown = await setKyc(sandbox, 'ghost', { kycStatus: 'approved' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      statusCode: 404,
      message: 'Payer with client user ID ghost not found',
      error: 'Not Found',
    });
    expect(sandbox.payer('payer-1')?.kycStatus).toBe('not_started');
  });

  it('the handle throws for an unknown payer or status', async () => {
    const sandbox = await start();
    expect(() => sandbox.setKyc('ghost', 'approved')).toThrow('Payer with client user ID ghost not found');
    await createPayer(sandbox);
    expect(() => sandbox.setKyc('payer-1', 'done' as never)).toThrow(/^kycStatus must be one of: not_started, /);
  });
});
