import { describe, expect, it } from 'vitest';
import { WebAuth } from '../../src/web/WebAuth.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('WebAuth', () => {
  it('refuses a password shorter than 12 characters', async () => {
    await expect(WebAuth.create('short')).rejects.toThrow(/at least 12 characters/);
  });

  it("slows each sender's wrong tries, not another's", async () => {
    const auth = await WebAuth.create('right-password');
    for (let i = 0; i < 3; i++) expect(await auth.signIn('wrong', '198.51.100.1')).toBe('wrong');
    expect(await auth.signIn('wrong', '198.51.100.1')).toEqual({ wait: expect.any(Number) });
    const other = await auth.signIn('right-password', '198.51.100.2');
    expect(typeof other === 'object' && 'token' in other).toBe(true);
  });

  it('signs in with the password only, each time a new session with a CSRF token of its own', async () => {
    const auth = await WebAuth.create('s3cret passphrase');
    expect(await auth.signIn('s3cret passphras')).toBe('wrong');
    const a = await auth.signIn('s3cret passphrase');
    const b = await auth.signIn('s3cret passphrase');
    if (a === 'wrong' || 'wait' in a || b === 'wrong' || 'wait' in b) throw new Error('not signed in');
    expect(a.token).not.toBe(b.token);
    expect(a.session.csrf).not.toBe(b.session.csrf);
    expect(auth.session(a.token)).toBe(a.session);
    expect(auth.session('made-up')).toBeUndefined();
    expect(WebAuth.csrfValid(a.session, a.session.csrf)).toBe(true);
    expect(WebAuth.csrfValid(a.session, b.session.csrf)).toBe(false);
    expect(WebAuth.csrfValid(a.session, undefined)).toBe(false);
    auth.signOut(a.token);
    expect(auth.session(a.token)).toBeUndefined();
  });

  it('after three wrong passwords each next try waits, doubling; a try before its time is refused unread', async () => {
    const c = clock();
    const auth = await WebAuth.create('right-password', c.now);
    for (let i = 0; i < 3; i++) expect(await auth.signIn('wrong')).toBe('wrong');
    // Even the right password is not read during the wait.
    expect(await auth.signIn('right-password')).toEqual({ wait: 1000 });
    c.advance(1000);
    expect(await auth.signIn('wrong')).toBe('wrong');
    expect(await auth.signIn('right-password')).toEqual({ wait: 2000 });
    c.advance(2000);
    const ok = await auth.signIn('right-password');
    expect(typeof ok === 'object' && 'token' in ok).toBe(true);
    // A success starts the count again.
    expect(await auth.signIn('wrong')).toBe('wrong');
    expect(await auth.signIn('wrong')).toBe('wrong');
    expect(await auth.signIn('wrong')).toBe('wrong');
    expect(await auth.signIn('wrong')).toEqual({ wait: 1000 });
  });

  it('a session ends after 30 minutes without a request, and after 12 hours in any case', async () => {
    const c = clock();
    const auth = await WebAuth.create('right-password', c.now);
    const first = await auth.signIn('right-password');
    if (first === 'wrong' || 'wait' in first) throw new Error('not signed in');
    c.advance(29 * 60_000);
    expect(auth.session(first.token)).toBeDefined();
    c.advance(29 * 60_000);
    expect(auth.session(first.token)).toBeDefined();
    c.advance(31 * 60_000);
    expect(auth.session(first.token)).toBeUndefined();

    const busy = await auth.signIn('right-password');
    if (busy === 'wrong' || 'wait' in busy) throw new Error('not signed in');
    for (let i = 0; i <= 12 * 3; i++) {
      c.advance(20 * 60_000);
      auth.session(busy.token);
    }
    expect(auth.session(busy.token)).toBeUndefined();
  });
});

describe('WebAuth under many tries at once', () => {
  it('tries sent together are taken one after another: the fourth and later wait', async () => {
    const auth = await WebAuth.create('right-password');
    const results = await Promise.all(Array.from({ length: 10 }, () => auth.signIn('wrong')));
    expect(results.filter((r) => r === 'wrong')).toHaveLength(3);
    expect(results.slice(3).every((r) => typeof r === 'object' && 'wait' in r)).toBe(true);
  });
});
