import { afterEach, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../src/execute/idempotencyKey.js';
import { processBankRow, processPayer } from '../src/execute/processPayer.js';
import { STEPS, type PayerResult, type ValidBankRow } from '../src/types.js';
import { paymentDetailBody, payerRow, testClient } from './helpers/executeFixtures.js';
import { complianceAnswer, nestError, startScriptedServer, type Hit, type Reply, type ScriptedServer } from './helpers/scriptedServer.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const USER_ID = '3f1c2b7a-4d5e-4f60-8a9b-0c1d2e3f4a5b';
let detailIds = 0;

/** An API that works, with per-route overrides. */
function api(overrides: { compliance?: (hit: Hit) => Reply; details?: (hit: Hit) => Reply; agreement?: (hit: Hit) => Reply } = {}) {
  return (hit: Hit): Reply => {
    if (hit.method === 'POST' && hit.path === '/v1/payer') return overrides.compliance?.(hit) ?? { status: 200, body: complianceAnswer(USER_ID) };
    if (hit.method === 'POST' && hit.path.endsWith('/payment-details')) {
      return overrides.details?.(hit) ?? { status: 201, body: { payment_detail: { id: `pd_${++detailIds}`, clientUserId: 'x', bankName: 'b', accountName: 'a', currency: 'USD', beneficiaryType: 'individual' } } };
    }
    if (hit.method === 'PATCH') return overrides.agreement?.(hit) ?? { status: 200, body: { success: true } };
    return { status: 404, body: nestError(404, 'no route') };
  };
}

const allSteps = { steps: [...STEPS] };

describe('processPayer', () => {
  it('registers, stores the bank account and completes the agreement, with what the API answered', async () => {
    detailIds = 0;
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    const row = payerRow();
    const result = await processPayer(client, row, allSteps);
    expect(result).toEqual<PayerResult>({
      outcome: 'ok',
      userId: USER_ID,
      agreementStatus: 'not_started',
      kycStatus: 'not_started',
      agreementUrl: `https://example.test/agreement/${USER_ID}`,
      kycUrl: `https://example.test/kyc/${USER_ID}`,
      paymentDetailIds: ['pd_1'],
      agreementCompleted: true,
      steps: { compliance: 'ok', 'payment-details': 'ok', agreement: 'ok' },
      errors: [],
    });
    expect(server.hits.map((h) => `${h.method} ${h.path}`).sort()).toEqual(['PATCH /v2/payer/payer-001', 'POST /v1/payer', 'POST /v2/payer/payer-001/payment-details']);
    const detailHit = server.hits.find((h) => h.path.endsWith('/payment-details'));
    expect(detailHit?.headers['idempotency-key']).toBe(idempotencyKey('payment-details', 'payer-001', row.paymentDetails[0]));
    expect(server.hits.find((h) => h.method === 'PATCH')?.headers['idempotency-key']).toBeUndefined();
  });

  it('sends compliance first, then payment details and the agreement at the same time', async () => {
    server = await startScriptedServer((hit) => ({ ...(api()(hit) as { status: number; body: unknown }), delayMs: 80 }));
    const client = testClient(server.url, { concurrency: 8 });
    const row = payerRow({ paymentDetails: [paymentDetailBody('111'), paymentDetailBody('222')] });
    const result = await processPayer(client, row, allSteps);
    expect(result.outcome).toBe('ok');
    expect(result.paymentDetailIds).toHaveLength(2);
    const [first, ...later] = server.hits;
    expect(first?.path).toBe('/v1/payer');
    expect(later).toHaveLength(3);
    // Every later call arrived after compliance was answered, and before any of them was answered.
    for (const hit of later) expect(hit.at).toBeGreaterThanOrEqual((first?.at ?? 0) + 80);
    const spread = Math.max(...later.map((h) => h.at)) - Math.min(...later.map((h) => h.at));
    expect(spread).toBeLessThan(80);
    expect(server.maxInFlight).toBe(3);
  });

  it('409 on compliance: the payer exists; done-before, no links, and the other steps go on', async () => {
    server = await startScriptedServer(api({ compliance: () => ({ status: 409, body: nestError(409, 'Payer already exists', 'Conflict') }) }));
    const client = testClient(server.url);
    const result = await processPayer(client, payerRow(), allSteps);
    expect(result).toMatchObject({ outcome: 'ok', steps: { compliance: 'done-before', 'payment-details': 'ok', agreement: 'ok' }, errors: [] });
    expect(result.userId).toBeUndefined();
    expect(result.agreementUrl).toBeUndefined();
    expect(server.hits).toHaveLength(3);
  });

  it('commit-then-500: the retry carries the same Idempotency-Key and the server replays the first answer', async () => {
    const stored = new Map<string, unknown>();
    let created = 0;
    server = await startScriptedServer(
      api({
        compliance: (hit) => {
          const key = String(hit.headers['idempotency-key']);
          if (stored.has(key)) return { status: 200, body: stored.get(key) };
          created += 1;
          stored.set(key, complianceAnswer(USER_ID));
          return { status: 500, body: nestError(500, 'Internal server error') }; // stored, answer lost
        },
      }),
    );
    const client = testClient(server.url);
    const result = await processPayer(client, payerRow(), allSteps);
    expect(created).toBe(1);
    expect(result).toMatchObject({ outcome: 'ok', userId: USER_ID, steps: { compliance: 'ok' } });
    const keys = server.hitsTo('POST', '/v1/payer').map((h) => h.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('compliance failing for good skips the other steps and fails the row with the server message', async () => {
    server = await startScriptedServer(api({ compliance: () => ({ status: 400, body: nestError(400, ['phone must be a valid phone number']) }) }));
    const client = testClient(server.url);
    const result = await processPayer(client, payerRow(), allSteps);
    expect(result).toEqual<PayerResult>({
      outcome: 'failed',
      paymentDetailIds: [],
      agreementCompleted: false,
      steps: { compliance: 'failed', 'payment-details': 'skipped', agreement: 'skipped' },
      errors: ['compliance: HTTP 400 phone must be a valid phone number'],
    });
    expect(server.hits).toHaveLength(1);
  });

  it('a failed payment detail fails the row but keeps the agreement result and the other detail', async () => {
    server = await startScriptedServer(
      api({ details: (hit) => ((hit.body as { accountNumber?: string }).accountNumber === '222' ? { status: 400, body: nestError(400, 'Invalid bank account details') } : { status: 201, body: { payment_detail: { id: 'pd_ok' } } }) }),
    );
    const client = testClient(server.url);
    const result = await processPayer(client, payerRow({ paymentDetails: [paymentDetailBody('111'), paymentDetailBody('222')] }), allSteps);
    expect(result).toMatchObject({
      outcome: 'failed',
      paymentDetailIds: ['pd_ok'],
      agreementCompleted: true,
      steps: { compliance: 'ok', 'payment-details': 'failed', agreement: 'ok' },
      errors: ['payment-details: HTTP 400 Invalid bank account details (2 of 2)'],
    });
  });

  it('a row whose agreementCompleted is false gets no agreement call (agreement=skipped) and is still ok', async () => {
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    const result = await processPayer(client, payerRow({ agreementCompleted: false }), allSteps);
    expect(result).toMatchObject({ outcome: 'ok', agreementCompleted: false, steps: { compliance: 'ok', 'payment-details': 'ok', agreement: 'skipped' } });
    expect(server.hitsTo('PATCH', '/')).toHaveLength(0);
  });

  it('a row without bank fields has no payment-details step', async () => {
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    const result = await processPayer(client, payerRow({ paymentDetails: [] }), allSteps);
    expect(result.steps).toEqual({ compliance: 'ok', agreement: 'ok' });
    expect(result.outcome).toBe('ok');
  });

  it('completedSteps are done-before and not sent; steps outside --steps are left out', async () => {
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    const result = await processPayer(client, payerRow({ completedSteps: ['compliance', 'payment-details'] }), allSteps);
    expect(result).toMatchObject({ outcome: 'ok', steps: { compliance: 'done-before', 'payment-details': 'done-before', agreement: 'ok' } });
    expect(server.hits.map((h) => h.method)).toEqual(['PATCH']);

    const onlyCompliance = await processPayer(client, payerRow({ clientUserId: 'payer-002' }), { steps: ['compliance'] });
    expect(onlyCompliance.steps).toEqual({ compliance: 'ok' });
    expect(onlyCompliance.agreementCompleted).toBeUndefined();
    expect(onlyCompliance.outcome).toBe('ok');
  });

  it('a stopped client: a row with nothing sent is skipped; a row partly sent is failed', async () => {
    server = await startScriptedServer(api({ details: () => ({ status: 401, body: nestError(401, 'Unauthorized') }), agreement: () => ({ status: 200, body: { success: true }, delayMs: 30 }) }));
    const client = testClient(server.url);
    const partly = await processPayer(client, payerRow(), allSteps);
    expect(client.stopped()?.reason).toBe('key-rejected');
    expect(partly).toMatchObject({ outcome: 'failed', steps: { compliance: 'ok', 'payment-details': 'failed', agreement: 'ok' }, errors: ['payment-details: HTTP 401 Unauthorized'] });

    const untouched = await processPayer(client, payerRow({ clientUserId: 'payer-002' }), allSteps);
    expect(untouched).toEqual<PayerResult>({
      outcome: 'skipped',
      paymentDetailIds: [],
      agreementCompleted: false,
      steps: { compliance: 'skipped', 'payment-details': 'skipped', agreement: 'skipped' },
      errors: ['compliance: not sent, API key rejected'],
    });
    expect(server.hits).toHaveLength(3);
  });
});

describe('processBankRow', () => {
  const bankRow = (clientUserId = 'payer-001'): ValidBankRow => ({ ok: true, clientUserId, paymentDetail: paymentDetailBody('999'), completedSteps: [] });
  const payerResult = (steps: PayerResult['steps'], errors: string[] = [], outcome: PayerResult['outcome'] = 'ok'): Promise<PayerResult> =>
    Promise.resolve({ outcome, paymentDetailIds: [], steps, errors });

  it('sends on its own when its payer is not in the run', async () => {
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    const result = await processBankRow(client, bankRow());
    expect(result).toMatchObject({ outcome: 'ok', steps: { 'payment-details': 'ok' }, errors: [] });
    expect(result.paymentDetailIds).toHaveLength(1);
    expect(server.hits[0]?.headers['idempotency-key']).toBe(idempotencyKey('payment-details', 'payer-001', bankRow().paymentDetail));
  });

  it('waits for its payer and sends once the payer is registered (or was before)', async () => {
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    let release: (r: PayerResult) => void = () => undefined;
    const payer = new Promise<PayerResult>((r) => (release = r));
    const pending = processBankRow(client, bankRow(), payer);
    await new Promise((r) => setTimeout(r, 30));
    expect(server.hits).toHaveLength(0);
    release({ outcome: 'failed', paymentDetailIds: [], steps: { compliance: 'done-before', agreement: 'failed' }, errors: ['agreement: HTTP 500'] });
    expect((await pending).outcome).toBe('ok');
    expect(server.hits).toHaveLength(1);
  });

  it("fails with the payer's error when the payer's compliance failed, and sends nothing", async () => {
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    const result = await processBankRow(client, bankRow(), payerResult({ compliance: 'failed' }, ['compliance: HTTP 400 email must be an email'], 'failed'));
    expect(result).toEqual<PayerResult>({
      outcome: 'failed',
      paymentDetailIds: [],
      steps: { 'payment-details': 'failed' },
      errors: ["payment-details: not sent, the payer's compliance call failed (compliance: HTTP 400 email must be an email)"],
    });
    const invalid = await processBankRow(client, bankRow(), payerResult({}, ['email: must be a valid e-mail address'], 'invalid'));
    expect(invalid).toMatchObject({ outcome: 'failed', errors: ["payment-details: not sent, the payer's row is invalid"] });
    expect(server.hits).toHaveLength(0);
  });

  it('is skipped when its payer was skipped; done-before when completedSteps says so', async () => {
    server = await startScriptedServer(api());
    const client = testClient(server.url);
    const skipped = await processBankRow(client, bankRow(), payerResult({ compliance: 'skipped' }, [], 'skipped'));
    expect(skipped).toMatchObject({ outcome: 'skipped', steps: { 'payment-details': 'skipped' } });
    const done = await processBankRow(client, { ...bankRow(), completedSteps: ['payment-details'] });
    expect(done).toMatchObject({ outcome: 'ok', steps: { 'payment-details': 'done-before' } });
    expect(server.hits).toHaveLength(0);
  });

  it('reports a 404 for an unknown payer with the server message', async () => {
    server = await startScriptedServer(api({ details: () => ({ status: 404, body: nestError(404, 'User with ID payer-404 not found', 'Not Found') }) }));
    const client = testClient(server.url);
    const result = await processBankRow(client, bankRow('payer-404'));
    expect(result).toMatchObject({ outcome: 'failed', steps: { 'payment-details': 'failed' }, errors: ['payment-details: HTTP 404 User with ID payer-404 not found'] });
  });
});
