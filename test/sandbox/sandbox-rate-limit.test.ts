import { afterEach, describe, expect, it } from 'vitest';
import { closeSandboxes, createPayer, start } from '../helpers/sandboxHelpers.js';
import { waitFor } from '../helpers/waitFor.js';

afterEach(closeSandboxes);

const THROTTLED = { statusCode: 429, message: 'ThrottlerException: Too Many Requests', error: 'Too Many Requests' };

describe('sandbox rate limit', () => {
  it('past N requests in a second answers 429 with Retry-After in whole seconds and a NestJS body', async () => {
    const sandbox = await start({ rateLimit: 2 });
    const replies = await Promise.all(['a', 'b', 'c'].map((id) => createPayer(sandbox, { clientUserId: id })));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429]);
    const limited = replies.find((r) => r.status === 429);
    expect(limited?.body).toEqual(THROTTLED);
    expect(limited?.headers.get('retry-after')).toBe('1');
    expect(sandbox.stats()).toMatchObject({ payersCreated: 2, rateLimited: 1, byStatus: { '200': 2, '429': 1 } });
  });

  it('--no-retry-after mode: the 429 carries no Retry-After, like the real API', async () => {
    const sandbox = await start({ rateLimit: 1, retryAfter: false });
    const replies = await Promise.all(['a', 'b'].map((id) => createPayer(sandbox, { clientUserId: id })));
    const limited = replies.find((r) => r.status === 429);
    expect(limited?.body).toEqual(THROTTLED);
    expect(limited?.headers.has('retry-after')).toBe(false);
  });

  it('a rejected request does not use up the budget: after Retry-After the client gets through', async () => {
    // No block here: this is about the limit's own window.
    const sandbox = await start({ rateLimit: 1, blockSeconds: 0 });
    expect((await createPayer(sandbox, { clientUserId: 'a' })).status).toBe(200);
    const limited = await createPayer(sandbox, { clientUserId: 'b' });
    const limitedAt = performance.now();
    expect(limited.status).toBe(429);
    const retryAfterMs = Number(limited.headers.get('retry-after')) * 1000;
    expect(retryAfterMs).toBe(1000);
    // Asking again and again meanwhile: were rejected requests counted, each would push the window on and none
    // would ever get through. One asked Retry-After or more after the 429 must get through.
    let tries = 0;
    await waitFor(
      async () => {
        tries += 1;
        const sentAt = performance.now();
        const again = await createPayer(sandbox, { clientUserId: 'b' });
        if (sentAt - limitedAt >= retryAfterMs || again.status !== 429) expect(again.status).toBe(200);
        return again.status === 200;
      },
      'the sandbox to take b',
      { intervalMs: 100 },
    );
    expect(sandbox.stats()).toMatchObject({ payersCreated: 2, rateLimited: tries });
  });

  it('a sustained breach blocks the client for --block-seconds: every request 429 until then, then it gets through', async () => {
    const sandbox = await start({ rateLimit: 2, blockSeconds: 1 });
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createPayer(sandbox, { clientUserId: `b${i}` })),
    );
    // Two taken, then refused: the third refusal within the second is more than the limit, and begins the block.
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429, 429]);
    const blockedAt = performance.now();
    expect(sandbox.stats().blockedRequests).toBeGreaterThan(0);
    // Past the limit's own window the block still refuses everything...
    await waitFor(
      async () =>
        performance.now() - blockedAt > 0 && (await createPayer(sandbox, { clientUserId: 'x' })).status === 429,
      'a refusal in the block',
    );
    // ...until it is over.
    await waitFor(
      async () => (await createPayer(sandbox, { clientUserId: 'late' })).status === 200,
      'the block to end',
      {
        intervalMs: 200,
      },
    );
    expect(performance.now() - blockedAt).toBeGreaterThanOrEqual(900);
  });

  it('0 means no limit', async () => {
    const sandbox = await start({ rateLimit: 0 });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createPayer(sandbox, { clientUserId: `p${i}` })),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(sandbox.stats().rateLimited).toBe(0);
  });

  it('every request counts, whatever the route', async () => {
    const sandbox = await start({ rateLimit: 2 });
    const statuses = [
      (await createPayer(sandbox)).status,
      (await createPayer(sandbox)).status, // a repeat that created nothing still used the budget
      (await createPayer(sandbox, { clientUserId: 'other' })).status,
    ];
    expect(statuses).toEqual([200, 200, 429]);
  });
});
