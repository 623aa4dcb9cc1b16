import { afterEach, describe, expect, it, vi } from 'vitest';
import { comply, testClient } from '../helpers/executeFixtures.js';
import { complianceAnswer, sequence, startScriptedServer, type ScriptedServer } from '../helpers/scriptedServer.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('api client: concurrency, rate and backpressure', () => {
  it('never has more than `concurrency` requests in flight, retries included', async () => {
    let n = 0;
    server = await startScriptedServer(() => {
      n += 1;
      return n % 4 === 0 ? { status: 503, delayMs: 15 } : { status: 200, body: complianceAnswer(), delayMs: 15 };
    });
    const client = testClient(server.url, { concurrency: 4 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => comply(client, i)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(server.maxInFlight).toBe(4);
    expect(client.stats().retries).toBeGreaterThan(0);
  });

  it("hands every answer on under a caller's fake timers, and after them", async () => {
    server = await startScriptedServer(() => ({ status: 200, body: complianceAnswer() }));
    const client = testClient(server.url, {});
    vi.useFakeTimers();
    try {
      expect((await comply(client, 0)).ok).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    expect((await comply(client, 1)).ok).toBe(true);
    expect((await comply(testClient(server.url, {}), 2)).ok).toBe(true);
  });

  it('counts pending calls and whenBelow resolves once there is room', async () => {
    server = await startScriptedServer(sequence({ status: 200, body: complianceAnswer(), delayMs: 40 }));
    const client = testClient(server.url, { concurrency: 2 });
    expect(client.pending).toBe(0);
    await client.whenBelow(1); // nothing pending: resolves at once
    const calls = Array.from({ length: 5 }, (_, i) => comply(client, i));
    expect(client.pending).toBe(5);
    await client.whenBelow(3);
    expect(client.pending).toBeLessThan(3);
    await Promise.all(calls);
    expect(client.pending).toBe(0);
  });

  it('keeps to the rate cap as the server sees it: at most R arrivals a second, counted from the first call', async () => {
    server = await startScriptedServer(sequence({ status: 200, body: complianceAnswer() }));
    const client = testClient(server.url, { concurrency: 8, rate: 20 });
    const startedAt = Date.now();
    await Promise.all(Array.from({ length: 30 }, (_, i) => comply(client, i)));
    expect(server.hits).toHaveLength(30);
    // Lower bounds only: a busy machine can make the server see a request later than it was sent (and so crowd
    // requests sent more than a second apart into one of its seconds), never earlier. So the (kR+1)th arrival
    // comes at least k seconds after the calls were made. The window itself is held exactly in limiter.test.ts,
    // on a clock the test drives.
    const arrivals = server.hits.map((h) => h.at).sort((a, b) => a - b);
    for (const [k, at] of arrivals.entries()) expect(at - startedAt).toBeGreaterThanOrEqual(Math.floor(k / 20) * 1000);
  });

  it('uses a limiter given to it, so its rate can be driven from outside', async () => {
    const { RateLimiter } = await import('../../src/execute/RateLimiter.js');
    const limiter = new RateLimiter(0);
    server = await startScriptedServer(sequence({ status: 200, body: complianceAnswer() }));
    const seen: unknown[] = [];
    const client = testClient(server.url, { limiter, onAttempt: (a) => seen.push(a.status) });
    expect(client.limiter).toBe(limiter);
    await comply(client, 1);
    expect(seen).toEqual([200]);
  });

  it('rejects impossible options with the option named', () => {
    expect(() => testClient('http://127.0.0.1:1', { concurrency: 0 })).toThrow(
      'concurrency: must be a whole number >= 1, got 0',
    );
    expect(() => testClient('http://127.0.0.1:1', { retries: -1 })).toThrow(
      'retries: must be a whole number >= 0, got -1',
    );
    expect(() => testClient('http://127.0.0.1:1', { timeoutMs: 0 })).toThrow(
      'timeoutMs: must be a number above 0, got 0',
    );
    expect(() => testClient('http://127.0.0.1:1', { rate: -2 })).toThrow(RangeError);
  });
});
