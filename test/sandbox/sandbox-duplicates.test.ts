import { afterEach, describe, expect, it } from 'vitest';
import { call, closeSandboxes, createPayer, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

describe('sandbox duplicates: a second create-compliance for the same clientUserId', () => {
  it('conflict: 409 in NestJS shape, counted, the first payer kept as it was', async () => {
    const sandbox = await start({ duplicates: 'conflict' });
    const first = await createPayer(sandbox);
    const again = await createPayer(sandbox, { firstName: 'Changed' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      statusCode: 409,
      message: 'Payer with client user ID payer-1 already exists',
      error: 'Conflict',
    });
    expect(sandbox.payer('payer-1')?.userId).toBe(first.body.userId);
    expect((sandbox.payer('payer-1')!.request as { firstName: string }).firstName).toBe('Ada');
    const stats = sandbox.stats();
    expect(stats.payersCreated).toBe(1);
    expect(stats.duplicatePayers).toBe(1);
    expect(stats.byStatus).toEqual({ '200': 1, '409': 1 });
  });

  it('return-existing (the default, as the real service): 200 with the stored answer, the stored data unchanged', async () => {
    const sandbox = await start();
    expect(sandbox.options.duplicates).toBe('return-existing');
    const first = await createPayer(sandbox);
    const again = await createPayer(sandbox, { firstName: 'Changed' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((sandbox.payer('payer-1')!.request as { firstName: string }).firstName).toBe('Ada');
    expect(sandbox.stats()).toMatchObject({
      payersCreated: 1,
      duplicatePayers: 1,
      byStatus: { '200': 2 },
    });
  });

  it('return-existing reports the agreement as completed once it is', async () => {
    const sandbox = await start();
    const first = await createPayer(sandbox);
    await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: true } });
    const again = await createPayer(sandbox);
    expect(again.body).toEqual({ ...first.body, status: { agreementStatus: 'completed', kycStatus: 'not_started' } });
  });

  it('concurrent creates of one clientUserId create exactly one payer', async () => {
    const sandbox = await start({ latencyMs: 20 });
    const replies = await Promise.all(Array.from({ length: 6 }, () => createPayer(sandbox)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.userId)).size).toBe(1);
    expect(sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 5 });
    const conflicting = await start({ latencyMs: 20, duplicates: 'conflict' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => createPayer(conflicting)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it('different clientUserIds are different payers', async () => {
    const sandbox = await start();
    const a = await createPayer(sandbox, { clientUserId: 'a' });
    const b = await createPayer(sandbox, { clientUserId: 'b' });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.userId).not.toBe(b.body.userId);
    expect(sandbox.stats().duplicatePayers).toBe(0);
  });
});
