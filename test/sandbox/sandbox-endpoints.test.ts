import { afterEach, describe, expect, it } from 'vitest';
import { complianceResponse, paths, paymentDetailResponse } from '../../src/core/schemas.js';
import { call, closeSandboxes, createPayer, payer, paymentDetail, start, UUID } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

describe('sandbox endpoints: success answers', () => {
  it('create compliance answers 200 with not_started statuses, links and a UUID userId', async () => {
    const sandbox = await start();
    const reply = await createPayer(sandbox);
    expect(reply.status).toBe(200);
    expect(complianceResponse.safeParse(reply.body).success).toBe(true);
    expect(reply.body.status).toEqual({ agreementStatus: 'not_started', kycStatus: 'not_started' });
    expect(reply.body.userId).toMatch(UUID);
    expect(reply.body.agreementUrl).toBe(`${sandbox.url}/__sandbox/agreement/${reply.body.userId}`);
    expect(reply.body.kycUrl).toBe(`${sandbox.url}/__sandbox/kyc/${reply.body.userId}`);
    expect(Object.keys(reply.body).sort()).toEqual(['agreementUrl', 'kycUrl', 'status', 'userId']);
  });

  it('the agreement and KYC links open a page on the sandbox', async () => {
    const sandbox = await start();
    const { body } = await createPayer(sandbox);
    const page = await fetch(body.agreementUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain(body.userId);
  });

  it('create payment details answers 201 with payment_detail for a known payer', async () => {
    const sandbox = await start({ kycAfter: 0 });
    await createPayer(sandbox);
    const reply = await call(sandbox, 'POST', `/${paths.paymentDetails('payer-1')}`, { body: paymentDetail() });
    expect(reply.status).toBe(201);
    expect(paymentDetailResponse.safeParse(reply.body).success).toBe(true);
    expect(reply.body.payment_detail).toEqual({
      id: expect.stringMatching(UUID),
      clientUserId: 'payer-1',
      bankName: 'First Bank',
      accountName: 'Ada Lovelace',
      currency: 'USD',
      beneficiaryType: 'individual',
      rails: 'local',
      country: 'US',
    });
    // The account number is stored, not echoed back.
    expect(reply.text).not.toContain('000123456789');
  });

  it('a payer may get several payment details, each with its own id', async () => {
    const sandbox = await start({ kycAfter: 0 });
    await createPayer(sandbox);
    const first = await call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail() });
    const second = await call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', {
      body: paymentDetail({ currency: 'EUR', rails: 'swift' }),
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.payment_detail.id).not.toBe(first.body.payment_detail.id);
    expect(second.body.payment_detail.rails).toBe('swift');
    expect(sandbox.payer('payer-1')?.paymentDetails.map((d) => d.id)).toEqual([
      first.body.payment_detail.id,
      second.body.payment_detail.id,
    ]);
  });

  it('update agreement answers 200 { success: true } and records it', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    const reply = await call(sandbox, 'PATCH', `/${paths.agreement('payer-1')}`, {
      body: { agreementCompleted: true },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true });
    expect(sandbox.payer('payer-1')?.agreementCompleted).toBe(true);
    const undo = await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: false } });
    expect(undo.body).toEqual({ success: true });
    expect(sandbox.payer('payer-1')?.agreementCompleted).toBe(false);
  });
});

describe('sandbox endpoints: unknown payers', () => {
  it('payment details for an unknown payer: 404 "User with ID <id> not found"', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'POST', '/v2/payer/nobody/payment-details', { body: paymentDetail() });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ statusCode: 404, message: 'User with ID nobody not found', error: 'Not Found' });
  });

  it('agreement of an unknown payer: 404 "Payer with client user ID <id> not found"', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'PATCH', '/v2/payer/nobody', { body: { agreementCompleted: true } });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      statusCode: 404,
      message: 'Payer with client user ID nobody not found',
      error: 'Not Found',
    });
  });
});

describe('sandbox endpoints: what was received', () => {
  it('decodes path parameters: an id with a slash, a space and non-ASCII letters', async () => {
    const sandbox = await start({ kycAfter: 0 });
    const id = 'acme/ü 1';
    await createPayer(sandbox, { clientUserId: id });
    const detail = await call(sandbox, 'POST', `/${paths.paymentDetails(id)}`, { body: paymentDetail() });
    expect(detail.status).toBe(201);
    expect(detail.body.payment_detail.clientUserId).toBe(id);
    const agreement = await call(sandbox, 'PATCH', `/${paths.agreement(id)}`, { body: { agreementCompleted: true } });
    expect(agreement.status).toBe(200);
    expect(sandbox.payer(id)?.agreementCompleted).toBe(true);
  });

  it('keeps the bodies exactly as received, queryable over HTTP and from the handle', async () => {
    const sandbox = await start({ kycAfter: 0 });
    await createPayer(sandbox, { companyName: 'Acme' });
    await call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail() });
    const stored = await call(sandbox, 'GET', `/__sandbox/payers/${encodeURIComponent('payer-1')}`, { headers: {} });
    expect(stored.status).toBe(200);
    expect(stored.body.request).toEqual(payer({ companyName: 'Acme' }));
    expect(stored.body.request.phone).toBe('+12175550100');
    expect(stored.body.paymentDetails[0].request.routingNumber).toBe('021000021');
    expect(stored.body.paymentDetails[0].request.accountNumber).toBe('000123456789');
    expect(sandbox.payer('payer-1')).toEqual(stored.body);
  });

  it('GET /__sandbox/payers/<unknown> is 404 and payer() undefined', async () => {
    const sandbox = await start();
    const stored = await call(sandbox, 'GET', '/__sandbox/payers/ghost', { headers: {} });
    expect(stored.status).toBe(404);
    expect(sandbox.payer('ghost')).toBeUndefined();
  });

  it('with keepRequests off, answers are the same but bodies are not kept', async () => {
    const sandbox = await start({ keepRequests: false });
    expect((await createPayer(sandbox)).status).toBe(200);
    expect(sandbox.payer('payer-1')?.request).toBeUndefined();
    expect(sandbox.payer('payer-1')?.userId).toMatch(UUID);
  });

  it('hands out the same ids for the same seed, other ids for another seed', async () => {
    const ids = async (seed: number) => {
      const sandbox = await start({ seed });
      const a = await createPayer(sandbox, { clientUserId: 'a' });
      const b = await createPayer(sandbox, { clientUserId: 'b' });
      return [a.body.userId, b.body.userId];
    };
    const first = await ids(5);
    expect(await ids(5)).toEqual(first);
    expect(await ids(6)).not.toEqual(first);
    expect(first[0]).not.toBe(first[1]);
  });
});
