import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import type { SqlStore } from '../../src/store/SqlStore.js';
import type { ControlTables, Store, WebUser } from '../../src/store/Store.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

// The team's users, their one-time links, the sign-in counts and the audit trail, on either backend (the postgres
// project runs this file on PostgreSQL).

let tmp: ReturnType<typeof tempDir>;
let test: TestStore;
let store: Store;
let controls: ControlTables;
beforeEach(async () => {
  tmp = tempDir();
  test = await testStore(tmp.dir);
  store = await openStore({ stateDir: tmp.dir, databaseUrl: test.env.PAYER_ONBOARD_DATABASE_URL });
  controls = store.controls(SERVICE);
});
afterEach(async () => {
  await store.close();
  await test.close();
  tmp.remove();
});

const SERVICE = 'api.example.com-0123456789ab';
const user = (over: Partial<WebUser> = {}): WebUser => ({
  id: 'u-1',
  name: 'Ada Byron',
  role: 'admin',
  email: 'Ada@Example.com',
  createdAt: '2026-12-01T10:00:00.000Z',
  createdBy: 'os:root@host',
  ...over,
});

describe('users', () => {
  it('are found by id, by name and by e-mail in any case; a name is taken once; another service has none', async () => {
    expect(await controls.addUser(user())).toBe(true);
    expect(await controls.addUser(user({ id: 'u-2', name: 'ADA BYRON' }))).toBe(false);
    expect(await controls.user({ name: 'ada byron' })).toEqual(user());
    expect(await controls.user({ email: 'ada@example.com' })).toEqual(user());
    expect(await controls.user({ id: 'u-1' })).toEqual(user());
    expect(await store.controls('other').users()).toEqual([]);
    await controls.putUser({ ...user(), role: 'viewer', passwordHash: 'scrypt:00:11' });
    expect((await controls.users()).map((u) => [u.name, u.role, u.passwordHash])).toEqual([
      ['Ada Byron', 'viewer', 'scrypt:00:11'],
    ]);
  });

  it("a password set spends the user's other links and ends their sessions; so does disabling them", async () => {
    await controls.addUser(user());
    const link = { userId: 'u-1', createdAt: '2026-12-01T10:00:00.000Z', expiresAt: '2026-12-04T10:00:00.000Z' };
    for (const tokenHash of ['mailed', 'handed', 'later']) await controls.addUserLink({ ...link, tokenHash });
    await store
      .web(SERVICE)
      .putSession({ tokenHash: 's', passwordMark: '', userId: 'u-1', csrf: 'c', endsAt: 9, seenAt: 1 });
    expect(await controls.takeUserLink('handed', '2026-12-02T10:00:00.000Z')).toBe('u-1');
    await controls.putUser({ ...user(), passwordHash: 'scrypt:00:11' }, '2026-12-02T10:00:00.000Z');
    expect(await controls.takeUserLink('mailed', '2026-12-02T11:00:00.000Z')).toBeUndefined();
    expect(await store.web(SERVICE).session('s')).toBeUndefined();
    await controls.addUserLink({ ...link, tokenHash: 'after' });
    await controls.putUser({ ...user(), disabledAt: '2026-12-02T12:00:00.000Z' });
    await controls.putUser(user());
    expect(await controls.takeUserLink('after', '2026-12-02T13:00:00.000Z')).toBeUndefined();
  });

  it('a one-time link is used once, and never once expired', async () => {
    await controls.addUser(user());
    const link = { userId: 'u-1', createdAt: '2026-12-01T10:00:00.000Z', expiresAt: '2026-12-04T10:00:00.000Z' };
    await controls.addUserLink({ ...link, tokenHash: 'a' });
    await controls.addUserLink({ ...link, tokenHash: 'b' });
    const [first, second] = await Promise.all([
      controls.takeUserLink('a', '2026-12-02T10:00:00.000Z'),
      controls.takeUserLink('a', '2026-12-02T10:00:00.000Z'),
    ]);
    expect([first, second].filter((taken) => taken === 'u-1')).toHaveLength(1);
    expect(await controls.takeUserLink('b', '2026-12-05T10:00:00.000Z')).toBeUndefined();
    expect(await controls.takeUserLink('nope', '2026-12-02T10:00:00.000Z')).toBeUndefined();
  });
});

describe('sign-in counts', () => {
  const waitOf = (failures: number) => (failures < 5 ? 0 : 1000);

  it('40 tries at once on one key: the first five are counted, the others find the wait and are not', async () => {
    const at = 1_000_000;
    const counted = await Promise.all(
      Array.from({ length: 40 }, () => controls.countTry(['account:a'], at, waitOf).then((m) => m.get('account:a')!)),
    );
    expect(counted.filter((c) => c.counted)).toHaveLength(5);
    expect(counted.filter((c) => !c.counted).every((c) => c.nextTryAt === at + 1000)).toBe(true);
    expect((await controls.tries(['account:a'])).get('account:a')).toEqual({ failures: 5, nextTryAt: at + 1000 });
    // The wait over, the next is counted again.
    expect((await controls.countTry(['account:a'], at + 1000, waitOf)).get('account:a')?.counted).toBe(true);
    await controls.clearTries(['account:a']);
    expect((await controls.tries(['account:a'])).size).toBe(0);
  });

  it('are forgotten once old, and past the most kept the oldest go first, never a device', async () => {
    for (let i = 0; i < 6; i++) await controls.countTry([`address:10.0.0.${i}`], 1000 + i, waitOf);
    await controls.countTry(['account:a'], 999, waitOf);
    await controls.countTry(['device:d'], 998, waitOf);
    await controls.countTry(['address:old'], 10, waitOf);
    expect(await controls.pruneTries(100, 4)).toBe(5);
    const left = await controls.tries(['account:a', 'device:d', 'address:old', 'address:10.0.0.2', 'address:10.0.0.5']);
    expect([...left.keys()].sort()).toEqual(['address:10.0.0.5', 'device:d']);
  });

  it("a try that was no guess is taken back: one less, others' kept", async () => {
    for (let i = 0; i < 5; i++) await controls.countTry(['address:x'], 1000, waitOf);
    expect((await controls.tries(['address:x'])).get('address:x')).toEqual({ failures: 5, nextTryAt: 2000 });
    await controls.uncountTry(['address:x', 'address:none'], waitOf);
    expect((await controls.tries(['address:x'])).get('address:x')).toEqual({ failures: 4, nextTryAt: 1000 });
  });
});

describe('the audit trail', () => {
  const line = (action: string, who = 'Ada', at = '2026-12-01T10:00:00.000Z') => ({
    at,
    who,
    address: '198.51.100.7',
    action,
    subject: 'up-1',
    detail: '{}',
  });

  it('keeps every line in order, filters them, and counts them', async () => {
    await controls.audit([line('upload'), line('cell changed', 'Bo', '2026-12-01T11:00:00.000Z')]);
    await controls.audit([line('approved', 'Cy', '2026-12-02T09:00:00.000Z')]);
    const all = await controls.auditLines({}, 0, 10);
    expect(all.map((l) => l.action)).toEqual(['approved', 'cell changed', 'upload']);
    expect(all[0]!.seq).toBeGreaterThan(all[1]!.seq!);
    expect((await controls.auditLines({ who: 'Bo' }, 0, 10)).map((l) => l.action)).toEqual(['cell changed']);
    expect(await controls.auditCount({ from: '2026-12-01T10:30:00.000Z', to: '2026-12-02T00:00:00.000Z' })).toBe(1);
    expect((await controls.auditLines({}, 1, 1)).map((l) => l.action)).toEqual(['cell changed']);
  });

  it('cannot be changed or emptied, whatever SQL the application sends', async () => {
    await controls.audit([line('upload')]);
    const sql = (store as SqlStore).sql;
    await expect(sql.change("UPDATE audit_trail SET who = 'someone else'", [])).rejects.toThrow(/append-only/);
    await expect(sql.change('DELETE FROM audit_trail', [])).rejects.toThrow(/append-only/);
    expect((await controls.auditLines({}, 0, 10)).map((l) => l.who)).toEqual(['Ada']);
    // Removing a service's journal keeps its trail.
    await store.journal(SERVICE).forget();
    expect(await controls.auditCount({})).toBe(1);
  });
});
