import { createHmac } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import yargs from 'yargs';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxCommand } from '../../src/commands/sandboxCommand.js';
import type { SandboxHandle, SandboxOptions } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, payer, paymentDetail, start } from '../helpers/sandboxHelpers.js';

const SECRET = 'whsec-test';

interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
}

/** A plain receiver on port 0: answers each delivery with the next of `statuses` (then 200), keeps what arrived. */
async function receiver(statuses: number[] = []) {
  const deliveries: Delivery[] = [];
  let attempts = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = statuses[attempts] ?? 200;
      attempts += 1;
      res.writeHead(status).end();
      if (status !== 200) return;
      const raw = Buffer.concat(chunks).toString('utf8');
      deliveries.push({ headers: req.headers, raw, body: JSON.parse(raw) as Record<string, unknown> });
      for (const w of waiters.filter((w) => deliveries.length >= w.count)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  opened.push(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    deliveries,
    attempts: () => attempts,
    /** Resolves once `count` deliveries have been accepted. */
    received: (count: number) =>
      new Promise<Delivery[]>((resolve) => {
        if (deliveries.length >= count) return resolve(deliveries);
        waiters.push({ count, resolve: () => resolve(deliveries) });
      }),
  };
}

const opened: Server[] = [];
afterEach(async () => {
  await closeSandboxes();
  await Promise.all(opened.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const sign = (raw: string): string => createHmac('sha256', SECRET).update(raw).digest('hex');

async function sandboxTo(url: string | undefined, options: SandboxOptions = {}): Promise<SandboxHandle> {
  return start({ webhookUrl: url, webhookSecret: SECRET, webhookRetryMs: 10, ...options });
}

const approve = (sandbox: SandboxHandle, id: string) =>
  call(sandbox, 'POST', `/__sandbox/payers/${id}/kyc`, { headers: {}, body: { kycStatus: 'approved' } });

describe('sandbox webhooks', () => {
  it('sends one signed compliance.updated when the admin route approves a payer', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url);
    await createPayer(sandbox, { clientUserId: 'p1' });
    const { userId } = sandbox.payer('p1')!;
    expect((await approve(sandbox, 'p1')).status).toBe(200);
    const [delivery] = await hook.received(1);
    expect(delivery!.body).toEqual({
      event: 'compliance.updated',
      clientUserId: 'p1',
      userId,
      kycStatus: 'approved',
      agreementStatus: 'not_started',
    });
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-request-network-signature']).toBe(sign(delivery!.raw));
    expect(sign(delivery!.raw)).not.toBe(createHmac('sha256', 'other').update(delivery!.raw).digest('hex'));
    expect(hook.deliveries).toHaveLength(1);
    // Counted once the receiver's answer is back, a moment after it saw the body.
    await expect.poll(() => sandbox.stats()).toMatchObject({ webhooksSent: 1, webhooksFailed: 0, webhooksDropped: 0 });
  });

  it('sends compliance.updated for --kyc-after and the agreement, in order', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url, { kycAfter: 0.05 });
    await createPayer(sandbox, { clientUserId: 'p1' });
    await hook.received(1);
    await call(sandbox, 'PATCH', '/v2/payer/p1', { body: { agreementCompleted: true } });
    const deliveries = await hook.received(2);
    expect(deliveries.map((d) => [d.body.event, d.body.kycStatus, d.body.agreementStatus])).toEqual([
      ['compliance.updated', 'approved', 'not_started'],
      ['compliance.updated', 'approved', 'completed'],
    ]);
  });

  it('sends payment_detail.updated when a stored account moves, by the admin route or the clock', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url, { kycAfter: 0, accountApproveMs: 60_000 });
    await createPayer(sandbox, { clientUserId: 'p1' });
    const created = await call(sandbox, 'POST', '/v2/payer/p1/payment-details', { body: paymentDetail() });
    const id = (created.body as { payment_detail: { id: string } }).payment_detail.id;
    await call(sandbox, 'POST', `/__sandbox/payment-details/${id}/status`, {
      headers: {},
      body: { status: 'approved' },
    });
    const [delivery] = await hook.received(1);
    expect(delivery!.body).toEqual({
      event: 'payment_detail.updated',
      clientUserId: 'p1',
      userId: sandbox.payer('p1')!.userId,
      paymentDetailId: id,
      status: 'approved',
    });
    expect(delivery!.headers['x-request-network-signature']).toBe(sign(delivery!.raw));

    const timed = await sandboxTo(hook.url, { kycAfter: 0, accountApproveMs: 20 });
    await createPayer(timed, { clientUserId: 'p2' });
    await call(timed, 'POST', '/v2/payer/p2/payment-details', { body: paymentDetail() });
    const deliveries = await hook.received(2);
    expect(deliveries[1]!.body).toMatchObject({
      event: 'payment_detail.updated',
      clientUserId: 'p2',
      status: 'approved',
    });
  });

  it('retries a delivery answered 500, then delivers it', async () => {
    const hook = await receiver([500]);
    const sandbox = await sandboxTo(hook.url);
    await createPayer(sandbox, { clientUserId: 'p1' });
    await approve(sandbox, 'p1');
    const [delivery] = await hook.received(1);
    expect(delivery!.body).toMatchObject({ event: 'compliance.updated', clientUserId: 'p1' });
    expect(hook.attempts()).toBe(2);
    await expect.poll(() => sandbox.stats()).toMatchObject({ webhooksSent: 1, webhooksFailed: 0 });
  });

  it('--webhook-twice 1 sends the same delivery twice', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url, { webhookTwice: 1 });
    await createPayer(sandbox, { clientUserId: 'p1' });
    await approve(sandbox, 'p1');
    const [first, second] = await hook.received(2);
    expect(second!.raw).toBe(first!.raw);
    expect(second!.headers['x-request-network-signature']).toBe(first!.headers['x-request-network-signature']);
    await expect.poll(() => sandbox.stats().webhooksSent).toBe(2);
  });

  it('--webhook-drop 1 sends none and counts them dropped; without a URL nothing is sent', async () => {
    const hook = await receiver();
    const dropping = await sandboxTo(hook.url, { webhookDrop: 1 });
    const silent = await sandboxTo(undefined);
    const sending = await sandboxTo(hook.url);
    for (const sandbox of [dropping, silent, sending]) {
      const id = sandbox === dropping ? 'dropped' : sandbox === silent ? 'silent' : 'sent';
      await createPayer(sandbox, { clientUserId: id });
      await approve(sandbox, id);
    }
    // The one that sends went last: had the others sent anything, it would have come before.
    const deliveries = await hook.received(1);
    expect(deliveries.map((d) => d.body.clientUserId)).toEqual(['sent']);
    expect(dropping.stats()).toMatchObject({ webhooksSent: 0, webhooksDropped: 1 });
    expect(silent.stats()).toMatchObject({ webhooksSent: 0, webhooksDropped: 0, webhooksFailed: 0 });
  });

  it('gives up after its retries, and close() does not wait for them', async () => {
    const hook = await receiver([500, 500, 500, 500]);
    const sandbox = await sandboxTo(hook.url, { webhookRetryMs: 1 });
    await createPayer(sandbox, { clientUserId: 'p1' });
    await approve(sandbox, 'p1');
    await expect.poll(() => sandbox.stats().webhooksFailed).toBe(1);
    expect(hook.attempts()).toBe(4);

    const slow = await sandboxTo('http://127.0.0.1:9/refused', { webhookRetryMs: 60_000 });
    await createPayer(slow, { clientUserId: 'p2' });
    await approve(slow, 'p2');
    await slow.close();
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
