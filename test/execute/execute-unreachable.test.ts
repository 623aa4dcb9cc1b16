import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptInfo } from '../../src/execute/ApiClient.js';
import { comply, testClient } from '../helpers/executeFixtures.js';
import { complianceAnswer } from '../helpers/scriptedServer.js';
import { waitFor } from '../helpers/waitFor.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await close(server);
});

/** A loopback server answering every request with `answer` (or never, with `hang`). */
async function listen(port = 0, behaviour: 'answer' | 'hang' = 'answer'): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    if (behaviour === 'hang') return;
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(complianceAnswer())),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return server;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: a server's, closed again. */
async function refusedPort(): Promise<number> {
  const server = await listen();
  const { port } = server.address() as AddressInfo;
  await close(server);
  servers.splice(servers.indexOf(server), 1);
  return port;
}

describe('api client: an API that cannot be reached', () => {
  it('a refused port: stops with one message naming the URL and the cause; every call ends not sent', async () => {
    const port = await refusedPort();
    const baseUrl = `http://127.0.0.1:${port}/`;
    const client = testClient(baseUrl, { concurrency: 4 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => comply(client, i)));
    expect(client.stopped()).toEqual({
      reason: 'unreachable',
      message: `cannot reach http://127.0.0.1:${port}: ECONNREFUSED`,
    });
    // Nothing in the rows is wrong: they end "not sent", and a later run sends them.
    for (const result of results)
      expect(result).toMatchObject({ ok: false, error: { kind: 'stopped', retryable: false } });
    expect(results[0]).toMatchObject({ error: { message: 'compliance: not sent, the API cannot be reached' } });
  });

  it('a TLS handshake that fails stops at once: retrying does not change a certificate', async () => {
    const server = await listen();
    const { port } = server.address() as AddressInfo;
    const attempts: AttemptInfo[] = [];
    const client = testClient(`https://127.0.0.1:${port}/`, { onAttempt: (a) => attempts.push(a) });
    const result = await comply(client, 1);
    expect(client.stopped()).toMatchObject({ reason: 'unreachable' });
    expect(client.stopped()?.message).toMatch(
      new RegExp(`^cannot reach https://127\\.0\\.0\\.1:${port}: (EPROTO|ERR_SSL_)`),
    );
    expect(result).toMatchObject({ ok: false, error: { kind: 'stopped' } });
    expect(attempts).toHaveLength(1);
  });

  it('every first call timing out stops at the first timeouts, not after every retry', async () => {
    const server = await listen(0, 'hang');
    const { port } = server.address() as AddressInfo;
    const attempts: AttemptInfo[] = [];
    const client = testClient(`http://127.0.0.1:${port}/`, {
      timeoutMs: 200,
      concurrency: 3,
      onAttempt: (a) => attempts.push(a),
    });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => comply(client, i)));
    expect(client.stopped()).toEqual({
      reason: 'unreachable',
      message: `cannot reach http://127.0.0.1:${port}: ETIMEDOUT`,
    });
    // The calls on the wire when the first timed out, and a retry or two: not 6 attempts a call (retries: 5).
    expect(attempts.length).toBeLessThanOrEqual(6);
    expect(attempts.every((a) => a.attempt <= 1 && a.status === 'timeout')).toBe(true);
    expect(results.every((r) => !r.ok && r.error.kind === 'stopped')).toBe(true);
  });

  it('once calls have been answered, a refused connection is a blip: retried, and the run goes on', async () => {
    let server = await listen();
    const { port } = server.address() as AddressInfo;
    const attempts: AttemptInfo[] = [];
    const client = testClient(`http://127.0.0.1:${port}/`, {
      retries: 20,
      // 100 ms between attempts: time for the server to come back while the call is still retrying.
      backoff: { baseMs: 200, maxMs: 200 },
      onAttempt: (a) => attempts.push(a),
    });
    expect((await comply(client, 1)).ok).toBe(true);
    await close(server);
    servers.splice(servers.indexOf(server), 1);
    const during = comply(client, 2);
    await waitFor(() => attempts.some((a) => a.status === 'network'), 'a refused attempt');
    server = await listen(port);
    expect((await during).ok).toBe(true);
    expect(client.stopped()).toBeUndefined();
    expect(attempts.filter((a) => a.status === 'network').length).toBeGreaterThanOrEqual(1);
  });
});
