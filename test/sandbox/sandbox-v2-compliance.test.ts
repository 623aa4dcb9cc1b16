import { afterEach, describe, expect, it } from 'vitest';
import { complianceResponse, paths } from '../../src/core/schemas.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, payer, start, UUID } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

const createV2 = (sandbox: SandboxHandle, overrides: Record<string, unknown> = {}) =>
  call(sandbox, 'POST', `/${paths.compliance('/v2/payer')}`, { body: payer(overrides) });
const firstName = (sandbox: SandboxHandle) => (sandbox.payer('payer-1')!.request as { firstName: string }).firstName;

// The service documents POST /v1/payer and POST /v2/payer alike ("checks compliance status and returns the URLs"),
// neither as changing a known payer's data: the sandbox does what is documented, nothing more.
describe('POST /v2/payer and POST /v1/payer: the same operation', () => {
  it('v2 creates a new payer with the same answer as v1', async () => {
    const sandbox = await start();
    const reply = await createV2(sandbox);
    expect(reply.status).toBe(200);
    expect(complianceResponse.safeParse(reply.body).success).toBe(true);
    expect(reply.body.status).toEqual({ agreementStatus: 'not_started', kycStatus: 'not_started' });
    expect(reply.body.userId).toMatch(UUID);
    expect(sandbox.stats()).toMatchObject({
      payersCreated: 1,
      duplicatePayers: 0,
      byRoute: { compliance: 1, 'compliance-v1': 0 },
    });
  });

  it.each([
    ['v2', createV2],
    ['v1', (sandbox: SandboxHandle, overrides?: Record<string, unknown>) => createPayer(sandbox, overrides)],
  ] as const)(
    '%s for a known payer with changed data: 200 with the current answer, the stored data kept',
    async (_, send) => {
      const sandbox = await start();
      const first = await createPayer(sandbox);
      await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: true } });
      sandbox.setKyc('payer-1', 'approved');
      const again = await send(sandbox, { firstName: 'Augusta' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...first.body, status: { agreementStatus: 'completed', kycStatus: 'approved' } });
      expect(firstName(sandbox)).toBe('Ada');
      expect(sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 1 });
    },
  );

  it('conflict mode answers 409 on either path, the stored data kept', async () => {
    const sandbox = await start({ duplicates: 'conflict' });
    await createPayer(sandbox);
    expect((await createV2(sandbox, { city: 'Shelbyville' })).status).toBe(409);
    expect((await createPayer(sandbox, { firstName: 'Augusta' })).status).toBe(409);
    expect(firstName(sandbox)).toBe('Ada');
    expect(sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 2 });
  });

  it('v2 validates like v1 and stores nothing on a bad body', async () => {
    const sandbox = await start();
    const bad = await createV2(sandbox, { email: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['email must be a valid e-mail address']);
    expect(sandbox.payer('payer-1')).toBeUndefined();
  });
});
