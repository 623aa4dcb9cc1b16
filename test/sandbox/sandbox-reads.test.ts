import { afterEach, describe, expect, it } from 'vitest';
import { paths, payerStatusResponse, paymentDetailsListResponse } from '../../src/core/schemas.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, KEY, paymentDetail, start, UUID } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

const addAccount = (sandbox: SandboxHandle, overrides: Record<string, unknown> = {}, id = 'payer-1') =>
  call(sandbox, 'POST', `/${paths.paymentDetails(id)}`, { body: paymentDetail(overrides) });
const listAccounts = (sandbox: SandboxHandle, id = 'payer-1', query = '') =>
  call(sandbox, 'GET', `/${paths.paymentDetails(id)}${query}`);
const setStatus = (sandbox: SandboxHandle, id: string, body: unknown) =>
  call(sandbox, 'POST', `/__sandbox/payment-details/${encodeURIComponent(id)}/status`, {
    body,
    headers: { 'content-type': 'application/json' },
  });

describe('GET /v2/payer/{clientUserId}', () => {
  it('200 with the statuses, isCompliant and userId, in the shape the client reads', async () => {
    const sandbox = await start();
    const created = await createPayer(sandbox, { clientUserId: 'acme/ü 1' });
    const reply = await call(sandbox, 'GET', `/${paths.payer('acme/ü 1')}`);
    expect(reply.status).toBe(200);
    expect(payerStatusResponse.safeParse(reply.body).success).toBe(true);
    expect(reply.body).toEqual({
      kycStatus: 'not_started',
      agreementStatus: 'not_started',
      isCompliant: false,
      userId: created.body.userId,
    });
  });

  it('404 for a payer the service does not know', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'GET', `/${paths.payer('nobody')}`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      statusCode: 404,
      message: 'Payer with client user ID nobody not found',
      error: 'Not Found',
    });
  });

  it('needs the key like every API route', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    expect((await call(sandbox, 'GET', '/v2/payer/payer-1', { headers: {} })).status).toBe(401);
    expect(
      (await call(sandbox, 'GET', '/v2/payer/payer-1/payment-details', { headers: { 'x-api-key': `${KEY}x` } })).status,
    ).toBe(401);
  });
});

describe('GET /v2/payer/{clientUserId}/payment-details', () => {
  it('lists every stored account: currency in lower case, absent numbers as null, numbers in full by default', async () => {
    const sandbox = await start({ kycAfter: 0 });
    const created = await createPayer(sandbox);
    const usd = await addAccount(sandbox);
    const eur = await addAccount(sandbox, {
      currency: 'EUR',
      rails: 'swift',
      accountNumber: undefined,
      routingNumber: undefined,
      accountType: undefined,
      iban: 'DE89370400440532013000',
      swiftBic: 'COBADEFFXXX',
      country: 'DE',
    });
    const reply = await listAccounts(sandbox);
    expect(reply.status).toBe(200);
    expect(paymentDetailsListResponse.safeParse(reply.body).success).toBe(true);
    expect(reply.body.paymentDetails).toEqual([
      {
        id: usd.body.payment_detail.id,
        userId: created.body.userId,
        clientUserId: 'payer-1',
        bankName: 'First Bank',
        accountName: 'Ada Lovelace',
        beneficiaryType: 'individual',
        accountNumber: '000123456789',
        routingNumber: '021000021',
        iban: null,
        sortCode: null,
        swiftBic: null,
        currency: 'usd',
        status: 'pending',
        rails: 'local',
        country: 'US',
      },
      {
        id: eur.body.payment_detail.id,
        userId: created.body.userId,
        clientUserId: 'payer-1',
        bankName: 'First Bank',
        accountName: 'Ada Lovelace',
        beneficiaryType: 'individual',
        accountNumber: null,
        routingNumber: null,
        iban: 'DE89370400440532013000',
        sortCode: null,
        swiftBic: 'COBADEFFXXX',
        currency: 'eur',
        status: 'pending',
        rails: 'swift',
        country: 'DE',
      },
    ]);
    expect(reply.body.paymentDetails[0].id).toMatch(UUID);
  });

  it('an empty list for a known payer without accounts; 404 "User with ID x not found" for an unknown one', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    expect((await listAccounts(sandbox)).body).toEqual({ paymentDetails: [] });
    const unknown = await listAccounts(sandbox, 'nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ statusCode: 404, message: 'User with ID nobody not found', error: 'Not Found' });
  });

  it('the paymentDetailsId query keeps only that account', async () => {
    const sandbox = await start({ kycAfter: 0 });
    await createPayer(sandbox);
    await addAccount(sandbox);
    const second = await addAccount(sandbox, { accountNumber: '999' });
    const id = second.body.payment_detail.id as string;
    const one = await listAccounts(sandbox, 'payer-1', `?paymentDetailsId=${encodeURIComponent(id)}`);
    expect(one.body.paymentDetails.map((d: { id: string }) => d.id)).toEqual([id]);
    expect(one.body.paymentDetails[0].accountNumber).toBe('999');
    expect((await listAccounts(sandbox, 'payer-1', '?paymentDetailsId=nope')).body).toEqual({ paymentDetails: [] });
    expect((await listAccounts(sandbox, 'payer-1', '?other=1')).body.paymentDetails).toHaveLength(2);
  });

  it('maskNumbers: accountNumber and iban as their last 4 characters only', async () => {
    const sandbox = await start({ kycAfter: 0, maskNumbers: true });
    await createPayer(sandbox);
    await addAccount(sandbox);
    await addAccount(sandbox, {
      currency: 'GBP',
      accountNumber: undefined,
      routingNumber: undefined,
      iban: 'GB29NWBK60161331926819',
      sortCode: '601613',
    });
    const reply = await listAccounts(sandbox);
    expect(
      reply.body.paymentDetails.map((d: Record<string, unknown>) => [
        d.accountNumber,
        d.iban,
        d.routingNumber,
        d.sortCode,
      ]),
    ).toEqual([
      ['6789', null, '021000021', null],
      [null, '6819', null, '601613'],
    ]);
    expect(reply.text).not.toContain('000123456789');
    expect(reply.text).not.toContain('GB29NWBK');
  });

  it('an account is pending, then approved accountApproveMs later (by the clock)', async () => {
    let now = 5_000;
    const sandbox = await start({ kycAfter: 0, accountApproveMs: 60_000, now: () => now });
    await createPayer(sandbox);
    await addAccount(sandbox);
    expect((await listAccounts(sandbox)).body.paymentDetails[0].status).toBe('pending');
    now += 59_999;
    expect(sandbox.payer('payer-1')?.paymentDetails[0]?.status).toBe('pending');
    now += 1;
    expect((await listAccounts(sandbox)).body.paymentDetails[0].status).toBe('approved');
    expect(sandbox.payer('payer-1')?.paymentDetails[0]?.status).toBe('approved');
  });

  it('with the default clock an account approves by itself (small accountApproveMs)', async () => {
    const sandbox = await start({ kycAfter: 0, accountApproveMs: 30 });
    await createPayer(sandbox);
    await addAccount(sandbox);
    await expect
      .poll(async () => (await listAccounts(sandbox)).body.paymentDetails[0].status, { interval: 20, timeout: 30_000 })
      .toBe('approved');
  });
});

describe('POST /__sandbox/payment-details/{id}/status and handle.setPaymentDetailStatus', () => {
  it("pins an account's status: failed stays failed, pending stays pending", async () => {
    let now = 0;
    const sandbox = await start({ kycAfter: 0, accountApproveMs: 10, now: () => now });
    await createPayer(sandbox);
    const a = (await addAccount(sandbox)).body.payment_detail.id as string;
    const b = (await addAccount(sandbox, { accountNumber: '1' })).body.payment_detail.id as string;
    const reply = await setStatus(sandbox, a, { status: 'failed' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: a, status: 'failed' });
    sandbox.setPaymentDetailStatus(b, 'pending');
    now += 1_000;
    expect((await listAccounts(sandbox)).body.paymentDetails.map((d: { status: string }) => d.status)).toEqual([
      'failed',
      'pending',
    ]);
    sandbox.setPaymentDetailStatus(b, 'approved');
    expect(sandbox.payer('payer-1')?.paymentDetails.map((d) => d.status)).toEqual(['failed', 'approved']);
    expect(sandbox.stats().requests).toBe(4);
  });

  it('400 for another status, 404 for an unknown id; the handle throws', async () => {
    const sandbox = await start({ kycAfter: 0 });
    await createPayer(sandbox);
    const id = (await addAccount(sandbox)).body.payment_detail.id as string;
    const bad = await setStatus(sandbox, id, { status: 'rejected' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['status must be one of the following values: pending, approved, failed']);
    const unknown = await setStatus(sandbox, 'nope', { status: 'approved' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      statusCode: 404,
      message: 'Payment detail with ID nope not found',
      error: 'Not Found',
    });
    expect(() => sandbox.setPaymentDetailStatus('nope', 'approved')).toThrow('Payment detail with ID nope not found');
  });
});

describe('reads go through the same gates as every API route', () => {
  it('scripts by route name or template, random faults, the rate limit and latency', async () => {
    const sandbox = await start({ rateLimit: 3 });
    await createPayer(sandbox);
    sandbox.script([
      { route: 'read-payer', status: 503 },
      { route: 'GET /v2/payer/:clientUserId/payment-details', status: 500 },
    ]);
    expect((await listAccounts(sandbox)).status).toBe(500);
    expect((await call(sandbox, 'GET', '/v2/payer/payer-1')).status).toBe(503);
    expect((await call(sandbox, 'GET', '/v2/payer/payer-1')).status).toBe(200);
    expect((await listAccounts(sandbox)).status).toBe(200);
    expect((await call(sandbox, 'GET', '/v2/payer/payer-1')).status).toBe(429);
    const faulty = await start({ fault500: 1 });
    expect((await call(faulty, 'GET', '/v2/payer/payer-1')).status).toBe(500);
    expect(faulty.stats().faults['500']).toBe(1);
  });

  it('a read is not an idempotent replay even with a key, and counts under reads', async () => {
    const sandbox = await start({ idempotency: 'on' });
    await createPayer(sandbox);
    const headers = { 'idempotency-key': 'same' };
    await call(sandbox, 'GET', '/v2/payer/payer-1', { extraHeaders: headers });
    sandbox.setKyc('payer-1', 'approved');
    const again = await call(sandbox, 'GET', '/v2/payer/payer-1', { extraHeaders: headers });
    expect(again.body.kycStatus).toBe('approved');
    expect(sandbox.stats()).toMatchObject({ reads: 2, idempotentReplays: 0 });
  });
});
