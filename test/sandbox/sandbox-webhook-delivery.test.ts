import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle, SandboxOptions } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, start } from '../helpers/sandboxHelpers.js';
import { closeReceivers, receiver } from '../helpers/webhookReceiver.js';

// How the sandbox delivers its webhooks, as the service documents it: a ULID delivery id that every attempt of a
// delivery carries, the attempt's retry count, three retries after 1 s, 5 s and 15 s with 5 s for each attempt
// (here a twentieth as long: 50, 250 and 750 ms, 250 ms an attempt), then dropped; and test deliveries, fired by an
// admin route.

const SECRET = 'whsec-test';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

afterEach(async () => {
  await closeSandboxes();
  await closeReceivers();
});

function sandboxTo(url: string | undefined, options: SandboxOptions = {}): Promise<SandboxHandle> {
  return start({ webhookUrl: url, webhookSecret: SECRET, webhookTimeScale: 0.05, ...options });
}

async function approved(sandbox: SandboxHandle, id: string): Promise<void> {
  await createPayer(sandbox, { clientUserId: id });
  await call(sandbox, 'POST', `/__sandbox/payers/${id}/kyc`, { headers: {}, body: { kycStatus: 'approved' } });
}

const headersOf = (hook: Awaited<ReturnType<typeof receiver>>, name: string) =>
  hook.attempts.map((a) => a.headers[name]);

/** A loopback port nothing listens on: every attempt is refused. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/webhooks`;
}

describe('sandbox webhook delivery', () => {
  it('a delivery answered 500 is tried again: the same delivery id, retry counts 0 then 1, the same signed body', async () => {
    const hook = await receiver([500]);
    const sandbox = await sandboxTo(hook.url);
    await approved(sandbox, 'p1');
    const [delivery] = await hook.received(1);
    expect(delivery!.body).toMatchObject({ event: 'compliance.updated', clientUserId: 'p1' });
    expect(hook.attempts.map((a) => a.answer)).toEqual([500, 200]);
    const [first, second] = hook.attempts;
    expect(first!.headers['x-request-network-delivery']).toMatch(ULID);
    expect(second!.headers['x-request-network-delivery']).toBe(first!.headers['x-request-network-delivery']);
    expect(headersOf(hook, 'x-request-network-retry-count')).toEqual(['0', '1']);
    expect(second!.raw).toBe(first!.raw);
    expect(second!.headers['x-request-network-signature']).toBe(first!.headers['x-request-network-signature']);
    expect(headersOf(hook, 'x-request-network-test')).toEqual([undefined, undefined]);
    await expect.poll(() => sandbox.stats()).toMatchObject({ webhooksSent: 1, webhookRetries: 1, webhooksDropped: 0 });
  });

  it('an attempt not answered within its time is tried again like a refusal', async () => {
    const hook = await receiver(['hang']);
    const sandbox = await sandboxTo(hook.url);
    await approved(sandbox, 'p1');
    await hook.received(1);
    expect(headersOf(hook, 'x-request-network-retry-count')).toEqual(['0', '1']);
    await expect.poll(() => sandbox.stats()).toMatchObject({ webhooksSent: 1, webhookRetries: 1 });
  });

  it('4 attempts, each later than the last by the schedule, then the delivery is dropped and counted so', async () => {
    const hook = await receiver([503, 503, 503, 503]);
    const sandbox = await sandboxTo(hook.url);
    await approved(sandbox, 'p1');
    await expect.poll(() => sandbox.stats()).toMatchObject({ webhooksDropped: 1, webhookRetries: 3, webhooksSent: 0 });
    expect(headersOf(hook, 'x-request-network-retry-count')).toEqual(['0', '1', '2', '3']);
    expect(new Set(headersOf(hook, 'x-request-network-delivery')).size).toBe(1);
    // Each wait at least its step of the schedule (a timer may fire a millisecond early).
    const gaps = hook.attempts.slice(1).map((a, i) => a.at - hook.attempts[i]!.at);
    expect(gaps.map((gap, i) => gap >= [50, 250, 750][i]! - 2)).toEqual([true, true, true]);
  });

  it('a receiver that cannot be reached loses the delivery after the last retry', async () => {
    const sandbox = await sandboxTo(await closedPort());
    await approved(sandbox, 'p1');
    await expect.poll(() => sandbox.stats()).toMatchObject({ webhooksDropped: 1, webhookRetries: 3, webhooksSent: 0 });
  });

  it('close() does not wait for a delivery between its retries', async () => {
    const sandbox = await sandboxTo(await closedPort(), { webhookTimeScale: 10 });
    await approved(sandbox, 'p2');
    await sandbox.close();
    expect(sandbox.stats()).toMatchObject({ webhooksSent: 0, webhooksDropped: 0 });
  });

  it('each delivery has an id of its own; --webhook-twice 1 sends the same delivery (same id) twice', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url, { webhookTwice: 1 });
    await approved(sandbox, 'p1');
    await call(sandbox, 'PATCH', '/v2/payer/p1', { body: { agreementCompleted: true } });
    const deliveries = await hook.received(4);
    const ids = deliveries.map((d) => d.headers['x-request-network-delivery']);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[3]).toBe(ids[2]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(deliveries[1]!.raw).toBe(deliveries[0]!.raw);
    await expect.poll(() => sandbox.stats().webhooksSent).toBe(4);
  });

  it('--webhook-drop 1 sends none and counts them lost; without a URL nothing is sent', async () => {
    const hook = await receiver();
    const dropping = await sandboxTo(hook.url, { webhookDrop: 1 });
    const silent = await sandboxTo(undefined);
    const sending = await sandboxTo(hook.url);
    for (const [sandbox, id] of [
      [dropping, 'lost'],
      [silent, 'silent'],
      [sending, 'sent'],
    ] as const)
      await approved(sandbox, id);
    // The one that sends went last: had the others sent anything, it would have come before.
    const deliveries = await hook.received(1);
    expect(deliveries.map((d) => d.body.clientUserId)).toEqual(['sent']);
    expect(dropping.stats()).toMatchObject({ webhooksSent: 0, webhooksLost: 1, webhooksDropped: 0 });
    expect(silent.stats()).toMatchObject({ webhooksSent: 0, webhooksLost: 0, webhooksDropped: 0 });
  });
});

describe('sandbox test deliveries: POST /__sandbox/webhooks/test', () => {
  it('sends placeholder data marked x-request-network-test, signed like any delivery, once', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url);
    const fired = await call(sandbox, 'POST', '/__sandbox/webhooks/test', { headers: {}, body: {} });
    expect([fired.status, fired.body]).toEqual([200, { sent: 1, failed: 0 }]);
    expect(hook.attempts).toHaveLength(1);
    const [test] = hook.attempts;
    expect(test!.headers).toMatchObject({ 'x-request-network-test': 'true', 'x-request-network-retry-count': '0' });
    expect(test!.headers['x-request-network-delivery']).toMatch(ULID);
    expect(test!.body).toMatchObject({ event: 'compliance.updated', clientUserId: 'user_test123456789' });

    const account = await call(sandbox, 'POST', '/__sandbox/webhooks/test', {
      headers: {},
      body: { eventType: 'payment_detail.updated' },
    });
    expect(account.status).toBe(200);
    expect(hook.attempts[1]!.body).toMatchObject({
      event: 'payment_detail.updated',
      paymentDetailsId: 'pd_test123456789',
    });
    // Nothing the sandbox stores changed, and the stats of deliveries count the service's own only.
    expect(sandbox.stats()).toMatchObject({ webhooksSent: 0, payersCreated: 0 });
  });

  it('a receiver that refuses it: answered with failed 1, not tried again', async () => {
    const hook = await receiver([500]);
    const sandbox = await sandboxTo(hook.url);
    const fired = await call(sandbox, 'POST', '/__sandbox/webhooks/test', { headers: {}, body: {} });
    expect([fired.status, fired.body]).toEqual([200, { sent: 0, failed: 1 }]);
    expect(hook.attempts).toHaveLength(1);
  });

  it('an event type it does not send is 400; no URL registered is 409', async () => {
    const hook = await receiver();
    const sandbox = await sandboxTo(hook.url);
    const odd = await call(sandbox, 'POST', '/__sandbox/webhooks/test', {
      headers: {},
      body: { eventType: 'payment.confirmed' },
    });
    expect(odd.status).toBe(400);
    expect(odd.body).toMatchObject({
      message: ['eventType must be one of: compliance.updated, payment_detail.updated'],
    });
    const nowhere = await call(await sandboxTo(undefined), 'POST', '/__sandbox/webhooks/test', {
      headers: {},
      body: {},
    });
    expect([nowhere.status, nowhere.body]).toMatchObject([409, { message: expect.stringContaining('no webhook URL') }]);
    expect(hook.attempts).toHaveLength(0);
  });
});
