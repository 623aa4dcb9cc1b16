import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import type { WebUser } from '../../src/store/Store.js';
import { Audit } from '../../src/web/Audit.js';
import { hashPassword, type SignInResult, WebAuth } from '../../src/web/WebAuth.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
let stores: SqliteStore[];
beforeEach(() => {
  tmp = tempDir();
  stores = [];
});
afterEach(() => {
  for (const store of stores) store.close();
  tmp.remove();
});

/** serve's sign-in over its store, as a start of serve makes it (a second call: a second serve over the same store). */
async function started(password: string | undefined, now: () => number = Date.now) {
  const store = SqliteStore.open(tmp.dir);
  stores.push(store);
  const controls = store.controls('s');
  const auth = await WebAuth.create({
    password,
    web: store.web('s'),
    controls,
    settings: store.journal('s'),
    audit: new Audit(controls, now),
    now,
  });
  return { store, controls, auth };
}

async function user(name: string, role: WebUser['role'], password: string): Promise<WebUser> {
  return {
    id: `u-${name}`,
    name,
    role,
    passwordHash: await hashPassword(password),
    createdAt: new Date(0).toISOString(),
    createdBy: 'test',
  };
}

function signedIn(result: SignInResult) {
  if (typeof result !== 'object' || !('token' in result)) throw new Error(`not signed in: ${JSON.stringify(result)}`);
  return result;
}

const waited = (result: SignInResult) => typeof result === 'object' && 'wait' in result;

describe('WebAuth', () => {
  it('refuses a shared password shorter than 12 characters', async () => {
    await expect(started('short')).rejects.toThrow(/at least 12 characters/);
  });

  it('takes the shared password, with no name, as the single admin until the first named user exists', async () => {
    const { auth, controls } = await started('right-password');
    expect(await auth.signIn({ name: '', password: 'right-passwor', address: '198.51.100.1' })).toBe('wrong');
    const shared = signedIn(await auth.signIn({ name: '', password: 'right-password', address: '198.51.100.1' }));
    expect(shared.session.user).toEqual({ name: 'shared password', role: 'admin' });
    expect((await auth.session(shared.token))?.user.role).toBe('admin');

    expect(await controls.addUser(await user('Ada', 'admin', 'ada-password-1'))).toBe(true);
    // Its sessions end, and it signs in no more.
    expect(await auth.session(shared.token)).toBeUndefined();
    expect(await auth.signIn({ name: '', password: 'right-password', address: '198.51.100.1' })).toBe('shared-retired');
    const ada = signedIn(await auth.signIn({ name: 'ada', password: 'ada-password-1', address: '198.51.100.1' }));
    expect(ada.session.user).toEqual({ userId: 'u-Ada', name: 'Ada', role: 'admin' });
  });

  it('signs a named user in with their own password, each time a session with a CSRF token of its own', async () => {
    const { auth, controls } = await started(undefined);
    await controls.addUser(await user('Bo', 'preparer', 'bo-password-12'));
    expect(await auth.signIn({ name: 'Bo', password: 'bo-password-1', address: 'a' })).toBe('wrong');
    expect(await auth.signIn({ name: 'Nobody', password: 'bo-password-12', address: 'a' })).toBe('wrong');
    const a = signedIn(await auth.signIn({ name: 'Bo', password: 'bo-password-12', address: 'a' }));
    const b = signedIn(await auth.signIn({ name: 'BO', password: 'bo-password-12', address: 'a' }));
    expect(a.token).not.toBe(b.token);
    expect(a.session.csrf).not.toBe(b.session.csrf);
    expect((await auth.session(a.token))?.csrf).toBe(a.session.csrf);
    expect(await auth.session('made-up')).toBeUndefined();
    expect(WebAuth.csrfValid(a.session, a.session.csrf)).toBe(true);
    expect(WebAuth.csrfValid(a.session, b.session.csrf)).toBe(false);
    expect(WebAuth.csrfValid(a.session, undefined)).toBe(false);
    await auth.signOut(a.token, 'a');
    expect(await auth.session(a.token)).toBeUndefined();
    expect(await auth.session(b.token)).toBeDefined();
  });

  it("ends a disabled user's sessions on every serve at once, and signs them in no more", async () => {
    const x = await started(undefined);
    const y = await started(undefined);
    const bo = await user('Bo', 'approver', 'bo-password-12');
    await x.controls.addUser(bo);
    const session = signedIn(await x.auth.signIn({ name: 'Bo', password: 'bo-password-12', address: 'a' }));
    expect(await y.auth.session(session.token)).toBeDefined();
    await y.controls.putUser({ ...bo, disabledAt: new Date().toISOString() });
    expect(await x.auth.session(session.token)).toBeUndefined();
    expect(await x.auth.signIn({ name: 'Bo', password: 'bo-password-12', address: 'a' })).toBe('wrong');
  });

  it('writes each sign-in, refusal and sign-out to the audit trail, never a name that is no user', async () => {
    const { auth, controls } = await started(undefined);
    await controls.addUser(await user('Bo', 'viewer', 'bo-password-12'));
    await auth.signIn({ name: 'Bo', password: 'wrong-password', address: '198.51.100.7' });
    await auth.signIn({ name: 'typed-my-password-here', password: 'x', address: '198.51.100.7' });
    const ok = signedIn(await auth.signIn({ name: 'Bo', password: 'bo-password-12', address: '198.51.100.7' }));
    await auth.signOut(ok.token, '198.51.100.7');
    const lines = (await controls.auditLines({}, 0, 10)).reverse();
    expect(lines.map((l) => [l.who, l.action, l.address])).toEqual([
      ['Bo', 'sign-in refused', '198.51.100.7'],
      ['(no such user)', 'sign-in refused', '198.51.100.7'],
      ['Bo', 'sign-in', '198.51.100.7'],
      ['Bo', 'sign-out', '198.51.100.7'],
    ]);
  });
});

describe('sign-in under a guesser', () => {
  it('40 wrong guesses at once for A: a few are read, the rest wait unread; A and B on known browsers sign in at once', async () => {
    let now = 1_000_000;
    const { auth, controls } = await started(undefined, () => now);
    await controls.addUser(await user('A', 'approver', 'a-password-123'));
    await controls.addUser(await user('B', 'preparer', 'b-password-123'));
    // Each signed in before from their own browser: those browsers carry device cookies.
    const aDevice = signedIn(
      await auth.signIn({ name: 'A', password: 'a-password-123', address: '203.0.113.9' }),
    ).device;
    const bDevice = signedIn(
      await auth.signIn({ name: 'B', password: 'b-password-123', address: '203.0.113.5' }),
    ).device;

    const office = '203.0.113.5';
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => auth.signIn({ name: 'A', password: `guess-${i}`, address: office })),
    );
    expect(guesses.filter((r) => r === 'wrong')).toHaveLength(5);
    expect(guesses.filter(waited)).toHaveLength(35);

    // B, behind the same address, on the browser B signed in with: at once.
    signedIn(await auth.signIn({ name: 'B', password: 'b-password-123', address: office, device: bDevice }));
    // A, on A's own browser, from the same address: at once.
    signedIn(await auth.signIn({ name: 'A', password: 'a-password-123', address: office, device: aDevice }));
    // A fresh browser guessing for A waits, from any address, even with the right password; B's cookie is not A's.
    expect(waited(await auth.signIn({ name: 'A', password: 'a-password-123', address: '192.0.2.77' }))).toBe(true);
    expect(waited(await auth.signIn({ name: 'A', password: 'x', address: '192.0.2.78', device: bDevice }))).toBe(true);
    // The wait over, the right password is read again.
    now += 60_000;
    signedIn(await auth.signIn({ name: 'A', password: 'a-password-123', address: '192.0.2.77' }));
  });

  // Each test's clock stands still: a wait of a second must not pass while a loaded machine hashes the tries.
  it("a guesser spraying names from one address slows that address's fresh browsers, not known ones", async () => {
    const { auth, controls } = await started(undefined, () => 1_000_000);
    await controls.addUser(await user('B', 'viewer', 'b-password-123'));
    const bDevice = signedIn(await auth.signIn({ name: 'B', password: 'b-password-123', address: 'x' })).device;
    const office = '203.0.113.5';
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => auth.signIn({ name: `name-${i}`, password: 'guess', address: office })),
    );
    expect(waited(await auth.signIn({ name: 'B', password: 'b-password-123', address: office }))).toBe(true);
    signedIn(await auth.signIn({ name: 'B', password: 'b-password-123', address: office, device: bDevice }));
  });

  it("a guesser's own right password frees none of the guesses its address used up at other names", async () => {
    const { auth, controls } = await started(undefined, () => 1_000_000);
    await controls.addUser(await user('G', 'viewer', 'g-password-123'));
    const office = '203.0.113.5';
    for (let i = 0; i < 19; i++) await auth.signIn({ name: `name-${i}`, password: 'guess', address: office });
    signedIn(await auth.signIn({ name: 'G', password: 'g-password-123', address: office }));
    expect(await auth.signIn({ name: 'name-19', password: 'guess', address: office })).toBe('wrong');
    expect(waited(await auth.signIn({ name: 'name-20', password: 'guess', address: office }))).toBe(true);
  });

  it('a device cookie is known only as signed by this serve, for its own name', async () => {
    const { auth, controls } = await started(undefined, () => 1_000_000);
    await controls.addUser(await user('A', 'viewer', 'a-password-123'));
    const device = signedIn(await auth.signIn({ name: 'A', password: 'a-password-123', address: 'x' })).device;
    const [name, nonce] = device.split('.');
    const forged = `${name}.${nonce}.${'A'.repeat(43)}`;
    await Promise.all(Array.from({ length: 6 }, () => auth.signIn({ name: 'A', password: 'guess', address: 'y' })));
    expect(waited(await auth.signIn({ name: 'A', password: 'a-password-123', address: 'z', device: forged }))).toBe(
      true,
    );
    signedIn(await auth.signIn({ name: 'A', password: 'a-password-123', address: 'z', device }));
  });

  it('shares its counts through the store: a second serve sees the first one’s wrong tries', async () => {
    const x = await started(undefined, () => 1_000_000);
    const y = await started(undefined, () => 1_000_000);
    await x.controls.addUser(await user('A', 'viewer', 'a-password-123'));
    for (let i = 0; i < 5; i++)
      expect(await x.auth.signIn({ name: 'A', password: 'guess', address: 'p' })).toBe('wrong');
    expect(waited(await y.auth.signIn({ name: 'A', password: 'a-password-123', address: 'q' }))).toBe(true);
  });
});

describe('sessions kept in the store', () => {
  it('outlive a restart of serve; end at sign-out, once idle, and with a changed shared password', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const first = await started('right-password', clock);
    const kept = signedIn(await first.auth.signIn({ name: '', password: 'right-password', address: 'a' }));
    const out = signedIn(await first.auth.signIn({ name: '', password: 'right-password', address: 'a' }));
    await first.auth.signOut(out.token, 'a');

    const second = await started('right-password', clock);
    expect((await second.auth.session(kept.token))?.csrf).toBe(kept.session.csrf);
    expect(await second.auth.session(out.token)).toBeUndefined();

    now += 31 * 60_000;
    expect(await second.auth.session(kept.token)).toBeUndefined();
    const fresh = signedIn(await second.auth.signIn({ name: '', password: 'right-password', address: 'a' }));
    const changed = await started('another-password', clock);
    expect(await changed.auth.session(fresh.token)).toBeUndefined();
  });

  it('end after 12 hours in any case', async () => {
    let now = 1_000_000;
    const { auth } = await started('right-password', () => now);
    const busy = signedIn(await auth.signIn({ name: '', password: 'right-password', address: 'a' }));
    for (let i = 0; i < 12 * 3; i++) {
      now += 20 * 60_000;
      expect(await auth.session(busy.token)).toBeDefined();
    }
    now += 20 * 60_000;
    expect(await auth.session(busy.token)).toBeUndefined();
  });
});
