import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import { PayerAccess } from '../../src/web/payerPageAccess.js';
import { issueLink } from '../../src/web/payerLinks.js';
import { tempDir } from '../helpers/tempDir.js';

// The key to a payer's page: the link's token exchanged for a signed cookie, checked again at each request; guesses
// slowed per client; the secret shared by every serve over one store.

const SERVICE = 'api.example.com-0123456789ab';
let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;
beforeEach(() => {
  tmp = tempDir();
  store = SqliteStore.open(tmp.path('state'));
});
afterEach(() => {
  store.close();
  tmp.remove();
});

const tokenOf = async (now = new Date()) =>
  (await issueLink(store.directory(SERVICE), 'p-1', { now, days: 30, publicUrl: 'https://p.example' })).url.split(
    '/p/',
  )[1]!;

describe('PayerAccess', () => {
  it("a link's cookie opens the page until the link is revoked; its form tokens are the link's own", async () => {
    const access = await PayerAccess.open(store.journal(SERVICE), store.directory(SERVICE));
    const opened = await access.open(await tokenOf(), 'client');
    if (typeof opened !== 'object' || !('cookie' in opened)) throw new Error('not opened');
    expect(opened.maxAge).toBeGreaterThan(29 * 86_400);
    const link = await access.linkOf(opened.cookie, 'client');
    expect(link).toMatchObject({ clientUserId: 'p-1' });
    const csrf = access.csrf(opened.link);
    expect(csrf).not.toBe(access.csrf(opened.link));
    expect(access.csrfValid(opened.link, csrf)).toBe(true);
    expect(access.csrfValid(opened.link, `${csrf}x`)).toBe(false);
    expect(access.csrfValid(opened.link, undefined)).toBe(false);
    const other = await access.open(await tokenOf(), 'client');
    if (typeof other !== 'object' || !('link' in other)) throw new Error('not opened');
    expect(access.csrfValid(other.link, csrf)).toBe(false);

    await store.directory(SERVICE).revokeLinks('p-1', new Date().toISOString());
    expect(await access.linkOf(opened.cookie, 'client')).toBeUndefined();
    expect(await access.stillValid(opened.link)).toBe(false);
  });

  it('a second serve over the same store signs and checks with the same secret, even one that wrote its own meanwhile', async () => {
    const first = await PayerAccess.open(store.journal(SERVICE), store.directory(SERVICE));
    const second = await PayerAccess.open(store.journal(SERVICE), store.directory(SERVICE));
    const opened = await first.open(await tokenOf(), 'c');
    if (typeof opened !== 'object' || !('cookie' in opened)) throw new Error('not opened');
    expect(await second.linkOf(opened.cookie, 'c')).toMatchObject({ clientUserId: 'p-1' });

    // Two serves that started together: the secret the store kept is the last one written; the first goes on with it.
    let now = Date.now();
    const racing = await PayerAccess.open(store.journal(SERVICE), store.directory(SERVICE), () => now);
    await store.journal(SERVICE).write([{ setting: 'payer page secret', value: 'ab'.repeat(32) }]);
    const later = await PayerAccess.open(store.journal(SERVICE), store.directory(SERVICE));
    const fresh = await later.open(await tokenOf(), 'c');
    if (typeof fresh !== 'object' || !('cookie' in fresh)) throw new Error('not opened');
    now += 11_000;
    expect(await racing.linkOf(fresh.cookie, 'c')).toMatchObject({ clientUserId: 'p-1' });
  });

  it("ten tokens that are no one's in a minute hold the client back ten minutes; others are not held", async () => {
    let now = Date.now();
    const access = await PayerAccess.open(store.journal(SERVICE), store.directory(SERVICE), () => now);
    const real = await tokenOf(new Date(now));
    for (let i = 0; i < 9; i++) expect(await access.open(`guess-${i}`, 'guesser')).toBe('not-valid');
    now += 61_000;
    // A new minute: counting starts again.
    for (let i = 0; i < 9; i++) expect(await access.open('A'.repeat(43), 'guesser')).toBe('not-valid');
    expect(access.heldFor('guesser')).toBe(0);
    expect(await access.linkOf(`${'0'.repeat(64)}.forged`, 'guesser')).toBeUndefined();
    expect(access.heldFor('guesser')).toBe(600_000);
    expect(await access.open(real, 'guesser')).toEqual({ heldMs: 600_000 });
    expect(await access.open(real, 'someone else')).toMatchObject({ link: { clientUserId: 'p-1' } });
    now += 600_000;
    expect(await access.open(real, 'guesser')).toMatchObject({ link: { clientUserId: 'p-1' } });
  });

  it('an expired link opens nothing, and is no guess', async () => {
    const access = await PayerAccess.open(store.journal(SERVICE), store.directory(SERVICE));
    const old = await tokenOf(new Date(Date.now() - 31 * 86_400_000));
    for (let i = 0; i < 12; i++) expect(await access.open(old, 'payer')).toBe('not-valid');
    expect(access.heldFor('payer')).toBe(0);
  });
});
