import { afterEach, describe, expect, it } from 'vitest';
import { complianceResponse, paths } from '../../src/core/schemas.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, payer, start, UUID } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

const upsert = (sandbox: SandboxHandle, overrides: Record<string, unknown> = {}) =>
  call(sandbox, 'POST', `/${paths.compliance('/v2/payer')}`, { body: payer(overrides) });
const firstName = (sandbox: SandboxHandle) => (sandbox.payer('payer-1')!.request as { firstName: string }).firstName;

describe('POST /v2/payer: create or update compliance data', () => {
  it('creates a new payer with the same answer as POST /v1/payer', async () => {
    const sandbox = await start();
    const reply = await upsert(sandbox);
    expect(reply.status).toBe(200);
    expect(complianceResponse.safeParse(reply.body).success).toBe(true);
    expect(reply.body.status).toEqual({ agreementStatus: 'not_started', kycStatus: 'not_started' });
    expect(reply.body.userId).toMatch(UUID);
    expect(sandbox.stats()).toMatchObject({
      payersCreated: 1,
      duplicatePayers: 0,
      payersUpdated: 0,
      byRoute: { 'compliance-v2': 1, compliance: 0 },
    });
  });

  it('for a known payer replaces the stored data and answers 200 with the current answer', async () => {
    const sandbox = await start();
    const first = await createPayer(sandbox);
    await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: true } });
    sandbox.setKyc('payer-1', 'approved');
    const updated = await upsert(sandbox, { firstName: 'Augusta' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...first.body, status: { agreementStatus: 'completed', kycStatus: 'approved' } });
    expect(firstName(sandbox)).toBe('Augusta');
    expect(sandbox.payer('payer-1')).toMatchObject({
      userId: first.body.userId,
      kycStatus: 'approved',
      agreementStatus: 'completed',
    });
    expect(sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 1, payersUpdated: 1 });
  });

  it('the same data again is a duplicate, not an update, whatever the key order', async () => {
    const sandbox = await start();
    await upsert(sandbox);
    const reordered = Object.fromEntries(Object.entries(payer()).reverse());
    expect((await call(sandbox, 'POST', '/v2/payer', { body: reordered })).status).toBe(200);
    expect(sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 1, payersUpdated: 0 });
  });

  it('answers 200 for a known payer even in conflict mode: that mode is about POST /v1/payer', async () => {
    const sandbox = await start({ duplicates: 'conflict' });
    await createPayer(sandbox);
    const updated = await upsert(sandbox, { city: 'Shelbyville' });
    expect(updated.status).toBe(200);
    expect((sandbox.payer('payer-1')!.request as { city: string }).city).toBe('Shelbyville');
  });

  it('validates like POST /v1/payer and changes nothing on a bad body', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    const bad = await upsert(sandbox, { firstName: 'Augusta', email: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['email must be a valid e-mail address']);
    expect(firstName(sandbox)).toBe('Ada');
  });

  it('keepRequests off: the update is still counted, no body kept', async () => {
    const sandbox = await start({ keepRequests: false });
    await upsert(sandbox);
    await upsert(sandbox, { firstName: 'Augusta' });
    await upsert(sandbox, { firstName: 'Augusta' });
    expect(sandbox.payer('payer-1')?.request).toBeUndefined();
    expect(sandbox.stats()).toMatchObject({ duplicatePayers: 2, payersUpdated: 1 });
  });
});

describe('POST /v1/payer never changes a known payer', () => {
  it('return-existing: 200 with the current answer, the stored data kept', async () => {
    const sandbox = await start();
    await upsert(sandbox);
    const again = await createPayer(sandbox, { firstName: 'Augusta' });
    expect(again.status).toBe(200);
    expect(firstName(sandbox)).toBe('Ada');
    expect(sandbox.stats()).toMatchObject({ duplicatePayers: 1, payersUpdated: 0 });
  });

  it('conflict: 409, the stored data kept', async () => {
    const sandbox = await start({ duplicates: 'conflict' });
    await createPayer(sandbox);
    expect((await createPayer(sandbox, { firstName: 'Augusta' })).status).toBe(409);
    expect(firstName(sandbox)).toBe('Ada');
    expect(sandbox.stats()).toMatchObject({ duplicatePayers: 1, payersUpdated: 0 });
  });
});
