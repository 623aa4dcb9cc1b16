import { createHmac } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import yargs from 'yargs';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxCommand } from '../../src/commands/sandboxCommand.js';
import type { SandboxHandle, SandboxOptions } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, payer, paymentDetail, start } from '../helpers/sandboxHelpers.js';
import { closeReceivers, receiver } from '../helpers/webhookReceiver.js';

// What the sandbox's webhooks say, and when: the events' bodies and their signature. How they are delivered (the
// headers, the retries, test deliveries) is sandbox-webhook-delivery.test.ts.

const SECRET = 'whsec-test';

afterEach(async () => {
  await closeSandboxes();
  await closeReceivers();
});

const sign = (raw: string): string => createHmac('sha256', SECRET).update(raw).digest('hex');

async function sandboxTo(url: string | undefined, options: SandboxOptions = {}): Promise<SandboxHandle> {
  // The service's own schedule: 5 s for each attempt, so that no delivery is tried again on a loaded machine.
  return start({ webhookUrl: url, webhookSecret: SECRET, ...options });
}

const approve = (sandbox: SandboxHandle, id: string) =>
  call(sandbox, 'POST', `/__sandbox/payers/${id}/kyc`, { headers: {}, body: { kycStatus: 'approved' } });

/** A stored account's id, as the create answered it. */
async function storeAccount(sandbox: SandboxHandle, clientUserId: string): Promise<string> {
  const created = await call(sandbox, 'POST', `/v2/payer/${clientUserId}/payment-details`, { body: paymentDetail() });
  return (created.body as { payment_detail: { id: string } }).payment_detail.id;
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('sandbox webhooks', () => {
  it("sends one signed compliance.updated when the admin route approves a payer, in the service's documented shape", async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url);
    await createPayer(sandbox, { clientUserId: 'p1' });
    expect((await approve(sandbox, 'p1')).status).toBe(200);
    const [delivery] = await hook.received(1);
    expect(delivery!.body).toEqual({
      event: 'compliance.updated',
      clientUserId: 'p1',
      kycStatus: 'approved',
      agreementStatus: 'not_started',
      isCompliant: false,
      timestamp: expect.stringMatching(ISO_TIME),
      rawPayload: { provider: 'sandbox', kycStatus: 'approved', agreementStatus: 'not_started' },
    });
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-request-network-signature']).toBe(sign(delivery!.raw));
    expect(sign(delivery!.raw)).not.toBe(createHmac('sha256', 'other').update(delivery!.raw).digest('hex'));
    expect(hook.attempts).toHaveLength(1);
    // Counted once the receiver's answer is back, a moment after it saw the body.
    await expect.poll(() => sandbox.stats()).toMatchObject({ webhooksSent: 1, webhooksDropped: 0, webhooksLost: 0 });
  });

  it('sends compliance.updated for --kyc-after and the agreement, in order; compliant once both are done', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url, { kycAfter: 0.05 });
    await createPayer(sandbox, { clientUserId: 'p1' });
    await hook.received(1);
    await call(sandbox, 'PATCH', '/v2/payer/p1', { body: { agreementCompleted: true } });
    const deliveries = await hook.received(2);
    expect(deliveries.map((d) => [d.body.event, d.body.kycStatus, d.body.agreementStatus, d.body.isCompliant])).toEqual(
      [
        ['compliance.updated', 'approved', 'not_started', false],
        ['compliance.updated', 'approved', 'completed', true],
      ],
    );
  });

  it("sends payment_detail.updated when a stored account moves, in the reference app's shape: no clientUserId", async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url, { kycAfter: 0, accountApproveMs: 60_000 });
    await createPayer(sandbox, { clientUserId: 'p1' });
    const id = await storeAccount(sandbox, 'p1');
    await call(sandbox, 'POST', `/__sandbox/payment-details/${id}/status`, { headers: {}, body: { status: 'failed' } });
    const [delivery] = await hook.received(1);
    expect(delivery!.body).toEqual({
      event: 'payment_detail.updated',
      paymentDetailsId: id,
      status: 'failed',
      timestamp: expect.stringMatching(ISO_TIME),
    });
    expect(delivery!.headers['x-request-network-signature']).toBe(sign(delivery!.raw));
  });

  it("--webhook-account-shape community names the account paymentAccountId, as the community's fixtures do", async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url, { kycAfter: 0, accountApproveMs: 20, webhookAccountShape: 'community' });
    await createPayer(sandbox, { clientUserId: 'p2' });
    const id = await storeAccount(sandbox, 'p2');
    // Moved by the clock this time: approved once --account-approve-ms has passed.
    const [delivery] = await hook.received(1);
    expect(delivery!.body).toEqual({
      event: 'payment_detail.updated',
      paymentAccountId: id,
      status: 'approved',
      timestamp: expect.stringMatching(ISO_TIME),
    });
  });

  it('refuses --webhook-url without a secret', async () => {
    await expect(start({ webhookUrl: 'http://127.0.0.1:9/' })).rejects.toThrow(
      '--webhook-url: the webhooks need a signing secret: set PAYER_WEBHOOK_SECRET or give --webhook-secret-file FILE',
    );
  });

  it('the command signs with the secret from --webhook-secret-file, else PAYER_WEBHOOK_SECRET', async () => {
    const hook = await receiver();
    const file = join(await mkdtemp(join(tmpdir(), 'webhook-')), 'secret');
    await writeFile(file, 'from-file\n');
    const runs = [
      { args: ['--webhook-secret-file', file], env: { PAYER_WEBHOOK_SECRET: 'from-env' }, secret: 'from-file' },
      { args: [], env: { PAYER_WEBHOOK_SECRET: 'from-env' }, secret: 'from-env' },
    ];
    for (const [i, run] of runs.entries()) {
      const argv = sandboxCommand.builder(yargs(['--port', '0', '--webhook-url', hook.url, ...run.args])).parseSync();
      const stdout = new PassThrough();
      const stderr = new PassThrough().resume();
      const controller = new AbortController();
      const line = new Promise<string>((resolve) => stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
      const io = { stdout, stderr, env: run.env, cwd: process.cwd(), signal: controller.signal };
      const exited = sandboxCommand.handler(argv as Record<string, unknown>, io);
      const base = (await line).trim().slice('listening on '.length);
      const headers = { 'x-api-key': 'sandbox-key', 'content-type': 'application/json' };
      await fetch(`${base}/v1/payer`, { method: 'POST', headers, body: JSON.stringify(payer({ clientUserId: 'c' })) });
      await fetch(`${base}/__sandbox/payers/c/kyc`, { method: 'POST', headers, body: '{"kycStatus":"approved"}' });
      const delivery = (await hook.received(i + 1))[i]!;
      const expected = createHmac('sha256', run.secret).update(delivery.raw).digest('hex');
      expect(delivery.headers['x-request-network-signature']).toBe(expected);
      controller.abort();
      expect(await exited).toBe(0);
    }
  });
});
