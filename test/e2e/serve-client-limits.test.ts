import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTIONS_PER_ADDRESS, REQUESTS_PER_CLIENT } from '../../src/serve/clientLimits.js';
import { serveHarness, WEBHOOK_SECRET } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// serve's webhook route under attack, spoken to over real sockets. Every 127.x.y.z address is loopback on Linux: a
// client socket bound to one (localAddress) is a client of that address.

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
const held: Socket[] = [];
afterEach(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  await h?.close();
  h = undefined;
});

const sign = (body: string) => createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');

/**
 * A signed delivery of an event for a payer serve does not know (recorded, then ignored), from `from`: its status,
 * or 0 for a connection closed unanswered.
 */
function deliver(url: string, n: number, from: string, headers: Record<string, string> = {}): Promise<number> {
  const body = JSON.stringify({ event: 'compliance.updated', clientUserId: `stranger-${n}`, kycStatus: 'pending' });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/webhooks`, {
      method: 'POST',
      localAddress: from,
      agent: false,
      headers: {
        'content-type': 'application/json',
        'x-request-network-signature': sign(body),
        'x-request-network-delivery': `01J0000000000000000000${String(n).padStart(4, '0')}`,
        ...headers,
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(0) : reject(error)));
    req.end(body);
  });
}

const refused = (status: number) => status === 429 || status === 0;

/** A connection from `from` that has sent `text` and nothing more; resolves once connected. */
function slowSocket(url: string, from: string, text: string, closed: () => void): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: from });
    held.push(socket);
    socket.once('connect', () => {
      socket.write(text);
      resolve(socket);
    });
    socket.on('error', () => undefined);
    socket.once('close', closed);
    socket.once('error', reject);
  });
}

describe('serve: one address cannot keep the service’s deliveries out', () => {
  it('600 connections from one address dribbling their headers: 30 signed deliveries from another are all answered 200', async () => {
    h = await serveHarness();
    const url = h.serve.url;
    let closed = 0;
    const slow = 600;
    await Promise.all(
      Array.from({ length: slow }, () =>
        slowSocket(url, '127.0.0.2', 'POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nx-a: ', () => {
          closed += 1;
        }),
      ),
    );
    // What one address may hold it keeps (until its headers' deadline); the rest are closed as they come.
    await waitFor(() => closed >= slow - CONNECTIONS_PER_ADDRESS, 'the connections past the cap to be closed');
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => deliver(url, n, '127.0.0.3')));
    expect(answers).toEqual(answers.map(() => 200));
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/payer_onboard_limited_total\{limit="connections-per-address"\} (5[3-9]\d|[6-9]\d\d)/);
    expect(metrics).toMatch(/payer_onboard_webhooks_total\{result="recorded"\} 30/);
  });

  it.each([
    ['behind a proxy it trusts, the client it forwards is counted, never the proxy', '127.0.0.1', false],
    ['a forged X-Forwarded-For from a peer it does not trust changes nothing: the peer is counted', undefined, true],
  ])('%s', async (_title, trustProxy, otherRefused) => {
    // A body may take a minute here: the requests held open must outlast the test on any machine.
    h = await serveHarness({ serve: { bodyTimeoutMs: 60_000, ...(trustProxy ? { trustProxy } : {}) } });
    const url = h.serve.url;
    const forwardedFor = (client: string) => ({ 'x-forwarded-for': client });
    // One client, through the proxy on 127.0.0.1, holds the most requests it may: headers whole, bodies never sent.
    const headers = (client: string) =>
      `POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Forwarded-For: ${client}\r\n\r\n{`;
    await Promise.all(
      Array.from({ length: REQUESTS_PER_CLIENT }, () => slowSocket(url, '127.0.0.1', headers('203.0.113.7'), () => {})),
    );
    await waitFor(
      async () => refused(await deliver(url, 900, '127.0.0.1', forwardedFor('203.0.113.7'))),
      "the slow client's requests to be counted",
    );
    const other = await deliver(url, 901, '127.0.0.1', forwardedFor('198.51.100.9'));
    if (otherRefused) expect(refused(other)).toBe(true);
    else expect(other).toBe(200);
    // Asked of the registry itself: a GET from loopback would be one more client of 127.0.0.1, the one held.
    const metrics = await h.serve.metrics.registry.metrics();
    // Untrusted, 127.0.0.1 is one address whose connections are capped first; trusted, the proxy is not capped.
    const limit = otherRefused ? 'connections-per-address' : 'requests-per-client';
    expect(metrics).toMatch(new RegExp(`payer_onboard_limited_total\\{limit="${limit}"\\} [1-9]`));
  });
});
