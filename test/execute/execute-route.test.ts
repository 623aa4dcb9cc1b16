import { afterEach, describe, expect, it } from 'vitest';
import { executeRow } from '../../src/execute/executeRow.js';
import { bankWork, payerWork } from '../../src/plan/rowState.js';
import { paymentDetailBody, payerRow, rowDeps, testClient } from '../helpers/executeFixtures.js';
import { complianceAnswer, type Hit, type ScriptedServer, startScriptedServer } from '../helpers/scriptedServer.js';

// Validation refuses a clientUserId that cannot be one path segment; the client refuses it again, for a caller that
// got past validation: `..` would take a bank account's data to `POST /v2/payment-details`.

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The service as documented, for every route it has; anything else is a 404. */
function documented(hit: Hit) {
  if (hit.method === 'POST' && hit.path === '/v2/payer')
    return {
      status: 200,
      body: { ...complianceAnswer(), status: { kycStatus: 'approved', agreementStatus: 'pending' } },
    };
  const m = /^\/v2\/payer\/([^/]+)(\/payment-details)?$/.exec(hit.path);
  if (m === null) return { status: 404, body: { statusCode: 404, message: `Cannot ${hit.method} ${hit.path}` } };
  const approved = { kycStatus: 'approved', agreementStatus: 'completed', isCompliant: true };
  if (m[2] === undefined)
    return hit.method === 'GET' ? { status: 200, body: approved } : { status: 200, body: { success: true } };
  return hit.method === 'GET'
    ? { status: 200, body: { paymentDetails: [] } }
    : { status: 201, body: { payment_detail: { id: 'pd-1', ...paymentDetailBody() } } };
}

const deps = (url: string) => rowDeps(testClient(url, { retries: 1 }));

const BAD_IDS = ['.', '..', '', 'a\u0000b', 'x\u202Ey', 'a\u200Bb', 'a\u0085b'];

describe('a clientUserId that is not one path segment is never sent', () => {
  it.each(BAD_IDS)('%j: a payer row and a bank row send nothing, and end failed naming the id', async (id) => {
    server = await startScriptedServer(documented);
    const payer = await executeRow(payerWork(payerRow({ clientUserId: id })), deps(server.url), 'payers.csv:2');
    const bank = await executeRow(
      bankWork({ ok: true, clientUserId: id, paymentDetail: paymentDetailBody(), completedSteps: [] }),
      deps(server.url),
      'bank.csv:2',
    );
    expect(server.hits).toEqual([]);
    for (const result of [payer, bank]) {
      expect(result.outcome).toBe('failed');
      expect(result.errors.length).toBeGreaterThan(0);
      expect(result.errors.map((e) => e.message).join(' ')).toContain('not sent: clientUserId');
      // The id is named with its invisible characters written out, never raw.
      for (const error of result.errors) expect(error.message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    }
  });

  it.each(BAD_IDS)('%j: each call of the client is refused as data, final and not retried', async (id) => {
    server = await startScriptedServer(documented);
    const client = testClient(server.url);
    const results = await Promise.all([
      client.createCompliance(payerRow().compliance, { clientUserId: id, idempotencyKey: 'k' }),
      client.createPaymentDetail(id, paymentDetailBody(), { idempotencyKey: 'k' }),
      client.completeAgreement(id, { agreementCompleted: true }),
      client.readPayer(id),
      client.readPaymentDetails(id),
    ]);
    for (const result of results) {
      expect(result).toMatchObject({ ok: false, error: { kind: 'bad-route', retryable: false } });
    }
    expect(server.hits).toEqual([]);
    expect(client.stats().requests).toBe(0);
  });

  it('ids with dots and slashes that encode to one segment go to the three writes and two reads only', async () => {
    server = await startScriptedServer(documented);
    for (const id of ['a.b', '...', 'acme/1', '%2e%2e']) {
      const result = await executeRow(payerWork(payerRow({ clientUserId: id })), deps(server.url), 'payers.csv:2');
      expect(result.outcome, id).toBe('ok');
    }
    const routes = new Set(
      server.hits.map((h) => `${h.method} ${h.path.replace(/^\/v2\/payer\/[^/]+/, '/v2/payer/{id}')}`),
    );
    const allowed = [
      'POST /v2/payer',
      'GET /v2/payer/{id}',
      'GET /v2/payer/{id}/payment-details',
      'POST /v2/payer/{id}/payment-details',
      'PATCH /v2/payer/{id}',
    ];
    for (const route of routes) expect(allowed).toContain(route);
    expect(routes).toContain('POST /v2/payer/{id}/payment-details');
    expect(routes).toContain('PATCH /v2/payer/{id}');
    const ids = new Set(server.hits.filter((h) => h.path !== '/v2/payer').map((h) => h.path.split('/')[3]));
    expect([...ids].sort()).toEqual(['%252e%252e', '...', 'a.b', 'acme%2F1']);
  });
});
