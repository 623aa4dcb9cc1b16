import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_FILE, SqliteStore } from '../../src/store/SqliteStore.js';
import { WebAuth } from '../../src/web/WebAuth.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

/** serve's web sign-in over its store, as a start of serve makes it. */
async function started(password: string, now: () => number = Date.now) {
  const store = SqliteStore.open(tmp.dir);
  const auth = await WebAuth.create(password, now, { web: store.web('s'), settings: store.journal('s') });
  return { store, auth };
}

async function signedIn(auth: WebAuth, password: string) {
  const result = await auth.signIn(password);
  if (result === 'wrong' || 'wait' in result) throw new Error('not signed in');
  return result;
}

describe('web sessions kept in the store', () => {
  it('outlive a restart of serve; end at sign-out, with a changed password, and once over', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const first = await started('right-password', clock);
    const kept = await signedIn(first.auth, 'right-password');
    const out = await signedIn(first.auth, 'right-password');
    first.auth.signOut(out.token);
    first.store.close();

    const second = await started('right-password', clock);
    expect(second.auth.session(kept.token)).toEqual(kept.session);
    expect(second.auth.session(out.token)).toBeUndefined();
    second.store.close();

    // Idle past 30 minutes: over, after a restart as before it.
    now += 31 * 60_000;
    const third = await started('right-password', clock);
    expect(third.auth.session(kept.token)).toBeUndefined();
    const fresh = await signedIn(third.auth, 'right-password');
    third.store.close();

    // The operator changed the password: nobody stays signed in with the old one.
    const changed = await started('another-password', clock);
    expect(changed.auth.session(fresh.token)).toBeUndefined();
    changed.store.close();
  });

  it('never keeps the token itself: reading the store signs nobody in', async () => {
    const { store, auth } = await started('right-password');
    const { token, session } = await signedIn(auth, 'right-password');
    store.close();
    const bytes = readFileSync(join(tmp.dir, STORE_FILE)).toString('latin1');
    expect(bytes).not.toContain(token);
    expect(bytes).not.toContain('right-password');
    expect(bytes).toContain(session.csrf);
  });

  it('with two serves over one store: a sign-out stays, and a session of an old password is never taken', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const x = await started('right-password', clock);
    const kept = await signedIn(x.auth, 'right-password');
    // A second serve (a rolling restart) starts with the same password and takes the session on.
    const y = await started('right-password', clock);
    expect(y.auth.session(kept.token)).toBeDefined();
    // Signed out on the first; the second's next use of it, a minute on, does not bring it back into the store.
    x.auth.signOut(kept.token);
    now += 61_000;
    y.auth.session(kept.token);
    const z = await started('right-password', clock);
    expect(z.auth.session(kept.token)).toBeUndefined();
    // The password changed: a serve still running with the old one opens a session meanwhile; none of the new
    // password's serves takes it.
    const changed = await started('another-password', clock);
    const old = await signedIn(y.auth, 'right-password');
    const next = await started('another-password', clock);
    expect(next.auth.session(old.token)).toBeUndefined();
    for (const s of [x, y, z, changed, next]) s.store.close();
  });
});
