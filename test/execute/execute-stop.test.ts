import { afterEach, describe, expect, it } from 'vitest';
import { comply, testClient } from '../helpers/executeFixtures.js';
import {
  complianceAnswer,
  nestError,
  sequence,
  startScriptedServer,
  type ScriptedServer,
} from '../helpers/scriptedServer.js';
import { deferred, waitFor } from '../helpers/waitFor.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('api client: stopping', () => {
  it.each([401, 403])('%i stops every later and queued call without sending it', async (status) => {
    server = await startScriptedServer(
      sequence({ status, body: nestError(status, 'Invalid API key', 'Unauthorized'), delayMs: 20 }),
    );
    const client = testClient(server.url, { concurrency: 2 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => comply(client, i)));
    // Only what was already on the wire when the first 401 came back was sent.
    expect(server.hits.length).toBeLessThanOrEqual(2);
    expect(client.stopped()).toEqual({
      reason: 'key-rejected',
      message: `stopped: API key rejected (compliance: HTTP ${status} Invalid API key)`,
    });
    const sent = results.filter((r) => !r.ok && r.error.kind === 'http');
    const notSent = results.filter((r) => !r.ok && r.error.kind === 'stopped');
    expect(sent).toHaveLength(server.hits.length);
    expect(notSent).toHaveLength(20 - server.hits.length);
    expect(notSent[0]).toMatchObject({
      ok: false,
      error: { message: 'compliance: not sent, API key rejected', retryable: false },
    });

    const later = await client.completeAgreement('payer-1', { agreementCompleted: true });
    expect(later).toMatchObject({ ok: false, error: { kind: 'stopped', step: 'agreement' } });
    expect(server.hits.length).toBeLessThanOrEqual(2);
    expect(client.pending).toBe(0);
  });

  it('stops as api-down after maxConsecutiveFailures calls failed for good with 5xx or network errors', async () => {
    server = await startScriptedServer(sequence({ status: 500 }, { status: 500 }, { reset: true }, { status: 502 }));
    const client = testClient(server.url, { retries: 1, maxConsecutiveFailures: 3, concurrency: 1 });
    const results = [];
    for (let i = 0; i < 6; i += 1) results.push(await comply(client, i));
    // 3 calls x 2 attempts, then nothing more is sent.
    expect(server.hits).toHaveLength(6);
    expect(client.stopped()?.reason).toBe('api-down');
    expect(client.stopped()?.message).toBe(
      'stopped: API down, 3 calls in a row failed after retries (last: compliance: HTTP 502 Bad Gateway)',
    );
    expect(
      results
        .slice(3)
        .every((r) => !r.ok && r.error.kind === 'stopped' && r.error.message === 'compliance: not sent, API down'),
    ).toBe(true);
  });

  it('an answer from a live API in between resets the count of consecutive failures', async () => {
    let n = 0;
    server = await startScriptedServer(() => {
      n += 1;
      // fail, fail, 400 (the API is up), fail, fail, ...
      return n % 3 === 0 ? { status: 400, body: nestError(400, 'bad') } : { status: 500 };
    });
    const client = testClient(server.url, { retries: 0, maxConsecutiveFailures: 3, concurrency: 1 });
    for (let i = 0; i < 12; i += 1) await comply(client, i);
    expect(server.hits).toHaveLength(12);
    expect(client.stopped()).toBeUndefined();
  });

  it('stop("interrupted") lets requests on the wire finish and sends nothing more, not even retries', async () => {
    // Call 0 gets a 500 and waits out a long backoff; call 1 is on the wire, its answer held until after the stop;
    // call 2 is queued.
    const answerCall1 = deferred();
    server = await startScriptedServer((hit) =>
      hit.n === 0 ? { status: 500 } : answerCall1.promise.then(() => ({ status: 200, body: complianceAnswer() })),
    );
    const client = testClient(server.url, { concurrency: 1, backoff: { baseMs: 10_000, maxMs: 10_000 } });
    const calls = Array.from({ length: 3 }, (_, i) => comply(client, i));
    // Call 1 goes out only once call 0's attempt is over, so its arrival means call 0 is in its backoff.
    await waitFor(() => server!.hits.length >= 2, 'call 1 to reach the server');
    expect(server.hits).toHaveLength(2);
    client.stop('interrupted');
    answerCall1.resolve();
    const results = await Promise.all(calls);
    // The call whose retry the stop cut off ends "not sent" like the rest: nothing in its row is wrong, and a later
    // run sends it. The one on the wire finishes.
    expect(results[0]).toMatchObject({
      ok: false,
      error: { kind: 'stopped', message: 'compliance: not sent, run interrupted' },
    });
    expect(results[1]?.ok).toBe(true);
    expect(results[2]).toMatchObject({
      ok: false,
      error: { kind: 'stopped', message: 'compliance: not sent, run interrupted' },
    });
    expect(server.hits).toHaveLength(2);
    expect(client.stopped()).toEqual({ reason: 'interrupted', message: 'stopped: run interrupted' });
    client.stop('api-down');
    expect(client.stopped()?.reason).toBe('interrupted');
  });

  it('a stop during a long 429 pause releases the waiting calls at once', async () => {
    server = await startScriptedServer(sequence({ status: 429, headers: { 'retry-after': '600' } }));
    const answered: Array<number | string> = [];
    const client = testClient(server.url, {
      concurrency: 4,
      maxRetryAfterMs: 600_000,
      onAttempt: (attempt) => answered.push(attempt.status),
    });
    const calls = Promise.all(Array.from({ length: 4 }, (_, i) => comply(client, i)));
    // Every request sent has had its 429 back: the calls are all in the pause now.
    await waitFor(() => answered.length > 0 && answered.length === server!.hits.length, 'the 429s to reach the client');
    expect(answered.every((status) => status === 429)).toBe(true);
    client.stop('interrupted');
    const results = await calls; // would hang for 10 minutes if the pause were not cut short
    // Each was waiting to be sent again: the stop, not a 429, is why they end.
    expect(results.every((r) => !r.ok && r.error.kind === 'stopped')).toBe(true);
    expect(client.pending).toBe(0);
  });
});
