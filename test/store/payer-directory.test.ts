import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkTokenHash, newLinkToken } from '../../src/store/SqlDirectory.js';
import { openStore } from '../../src/store/openStore.js';
import type { DirectoryEntry, PayerDirectoryTables, Store } from '../../src/store/Store.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

// The payer directory, links, mails and signatures, on either backend (the postgres project runs this file on
// PostgreSQL).

let tmp: ReturnType<typeof tempDir>;
let test: TestStore;
let store: Store;
let directory: PayerDirectoryTables;
beforeEach(async () => {
  tmp = tempDir();
  test = await testStore(tmp.dir);
  store = await openStore({ stateDir: tmp.dir, databaseUrl: test.env.PAYER_ONBOARD_DATABASE_URL });
  directory = store.directory(SERVICE);
});
afterEach(async () => {
  await store.close();
  await test.close();
  tmp.remove();
});

const SERVICE = 'api.example.com-0123456789ab';
const entry = (id: string, over: Partial<DirectoryEntry> = {}): DirectoryEntry => ({
  clientUserId: id,
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: `${id}@example.com`,
  updatedAt: '2026-12-01T10:00:00.000Z',
  ...over,
});

describe('the payer directory', () => {
  it('keeps each payer once, the latest values winning; the same values keep their time; another service has none', async () => {
    await directory.putEntries([
      entry('p-1'),
      entry('p-2', { firstName: undefined, companyName: 'Acme Ltd' }),
      entry('p-3'),
    ]);
    await directory.putEntries([
      // The same values later: the entry and its time stay.
      entry('p-1', { updatedAt: '2026-12-02T10:00:00.000Z' }),
      // A new e-mail: it and the time change.
      entry('p-3', { email: 'new@example.com', updatedAt: '2026-12-02T10:00:00.000Z' }),
    ]);
    await store.directory('other-service').putEntries([entry('p-1', { firstName: 'Other' })]);
    const found = await directory.entries(['p-1', 'p-2', 'p-3', 'nobody']);
    expect([...found.values()].sort((a, b) => a.clientUserId.localeCompare(b.clientUserId))).toEqual([
      entry('p-1'),
      {
        clientUserId: 'p-2',
        lastName: 'Lovelace',
        email: 'p-2@example.com',
        companyName: 'Acme Ltd',
        updatedAt: entry('').updatedAt,
      },
      entry('p-3', { email: 'new@example.com', updatedAt: '2026-12-02T10:00:00.000Z' }),
    ]);
  });

  it('writes and reads a thousand payers at once (a statement for each hundred, an IN list for each 512)', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => entry(`m-${i}`));
    await directory.putEntries(many);
    const found = await directory.entries(many.map((e) => e.clientUserId));
    expect(found.size).toBe(1000);
    expect(found.get('m-999')).toEqual(entry('m-999'));
  });
});

describe("a payer's personal links", () => {
  it('a token of 256 random bits in base64url, kept only as its sha-256; found by the hash, opened once, revoked', async () => {
    const { token, tokenHash } = newLinkToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(linkTokenHash(token)).toBe(tokenHash);
    expect(newLinkToken().token).not.toBe(token);

    const other = newLinkToken();
    const link = {
      tokenHash,
      clientUserId: 'p-1',
      createdAt: '2026-12-01T10:00:00.000Z',
      expiresAt: '2026-12-31T10:00:00.000Z',
    };
    await directory.addLink(link);
    await directory.addLink({ ...link, tokenHash: other.tokenHash, createdAt: '2026-12-02T10:00:00.000Z' });
    await directory.addLink({ ...link, tokenHash: newLinkToken().tokenHash, clientUserId: 'p-2' });
    expect(await directory.link(tokenHash)).toEqual(link);
    expect(await directory.link(linkTokenHash('a guess'))).toBeUndefined();
    expect(await store.directory('other-service').link(tokenHash)).toBeUndefined();

    await directory.openedLink(tokenHash, '2026-12-03T10:00:00.000Z');
    await directory.openedLink(tokenHash, '2026-12-04T10:00:00.000Z');
    expect((await directory.link(tokenHash))?.openedAt).toBe('2026-12-03T10:00:00.000Z');

    expect(await directory.revokeLinks('p-1', '2026-12-05T10:00:00.000Z')).toBe(2);
    // Revoked already: the first revocation stands.
    expect(await directory.revokeLinks('p-1', '2026-12-06T10:00:00.000Z')).toBe(0);
    expect(await directory.link(tokenHash)).toEqual({
      ...link,
      openedAt: '2026-12-03T10:00:00.000Z',
      revokedAt: '2026-12-05T10:00:00.000Z',
    });
    expect((await directory.link(other.tokenHash))?.revokedAt).toBe('2026-12-05T10:00:00.000Z');
  });
});

describe('the mails sent', () => {
  it('a step is claimed once: `sending` over nothing or a refusal, never over a mail sending or sent', async () => {
    const mail = { clientUserId: 'p-1', step: 'invitation', at: '2026-12-01T10:00:00.000Z' };
    expect(await directory.putMail({ ...mail, state: 'sending' })).toBe(true);
    // A second process about to send the same mail: turned away.
    expect(await directory.putMail({ ...mail, state: 'sending' })).toBe(false);
    expect(await directory.putMail({ ...mail, state: 'refused', reason: '550 mailbox unavailable' })).toBe(true);
    // The address fixed since: it may go again.
    expect(await directory.putMail({ ...mail, state: 'sending', at: '2026-12-02T10:00:00.000Z' })).toBe(true);
    expect(await directory.putMail({ ...mail, state: 'sent', at: '2026-12-02T10:00:01.000Z' })).toBe(true);
    expect(await directory.putMail({ ...mail, state: 'sending', at: '2026-12-03T10:00:00.000Z' })).toBe(false);
    await directory.putMail({ clientUserId: 'p-1', step: 'reminder-1', state: 'sent', at: '2026-12-04T10:00:00.000Z' });
    await directory.putMail({
      clientUserId: 'p-2',
      step: 'invitation',
      state: 'refused',
      reason: 'no such user',
      at: mail.at,
    });
    await store.directory('other-service').putMail({ ...mail, state: 'sent' });

    expect(await directory.mails(['p-2', 'p-1', 'p-3'])).toEqual([
      { clientUserId: 'p-1', step: 'invitation', state: 'sent', at: '2026-12-02T10:00:01.000Z' },
      { clientUserId: 'p-1', step: 'reminder-1', state: 'sent', at: '2026-12-04T10:00:00.000Z' },
      { clientUserId: 'p-2', step: 'invitation', state: 'refused', reason: 'no such user', at: mail.at },
    ]);
    expect(await directory.mails(['p-3'])).toEqual([]);
  });
});

describe('the mails to send', () => {
  const at = (day: number, hour = 10) =>
    `2026-12-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;
  const invitation = { clientUserId: 'p-1', step: 'invitation' };

  it('a mail due is claimed once; a claim given back (the server out of reach) is claimed again; a sent one never', async () => {
    expect(await directory.putMail({ ...invitation, state: 'due', at: at(1) })).toBe(true);
    // Asked for again while due: it stays as it was.
    expect(await directory.putMail({ ...invitation, state: 'due', at: at(2) })).toBe(false);
    expect(await directory.putMail({ ...invitation, state: 'sending', at: at(3) })).toBe(true);
    expect(await directory.putMail({ ...invitation, state: 'sending', at: at(3) })).toBe(false);
    // The server could not be reached: the claim is given back, due as before.
    expect(await directory.putMail({ ...invitation, state: 'due', at: at(1) }, { over: ['sending'] })).toBe(true);
    expect(await directory.mailsDue(at(4), at(1), 10)).toEqual([{ ...invitation, state: 'due', at: at(1) }]);
    expect(await directory.putMail({ ...invitation, state: 'sending', at: at(4) })).toBe(true);
    expect(await directory.putMail({ ...invitation, state: 'sent', at: at(4) })).toBe(true);
    // Neither asked for nor claimed again once sent; given back only from `sending`.
    expect(await directory.putMail({ ...invitation, state: 'due', at: at(5) })).toBe(false);
    expect(await directory.putMail({ ...invitation, state: 'sending', at: at(5) })).toBe(false);
    expect(await directory.putMail({ ...invitation, state: 'due', at: at(5) }, { over: ['sending'] })).toBe(false);
    // The operator's word: a new invitation over the one sent.
    expect(await directory.putMail({ ...invitation, state: 'due', at: at(6) }, { over: ['none', 'sent'] })).toBe(true);
    expect(await directory.mails(['p-1'])).toEqual([{ ...invitation, state: 'due', at: at(6) }]);
  });

  it('a claim a crash left is taken over once it is old enough, never a fresh one', async () => {
    await directory.putMail({ ...invitation, state: 'sending', at: at(1, 10) });
    const stale = { over: ['none', 'due', 'refused'] as const, claimedBefore: at(1, 9) };
    expect(await directory.putMail({ ...invitation, state: 'sending', at: at(1, 11) }, stale)).toBe(false);
    expect(await directory.mailsDue(at(2), at(1, 9), 10)).toEqual([]);
    expect(await directory.mailsDue(at(2), at(1, 11), 10)).toEqual([
      { ...invitation, state: 'sending', at: at(1, 10) },
    ]);
    const later = { ...stale, claimedBefore: at(1, 11) };
    expect(await directory.putMail({ ...invitation, state: 'sending', at: at(1, 12) }, later)).toBe(true);
    // Taken over: the claim is fresh again.
    expect(await directory.putMail({ ...invitation, state: 'sending', at: at(1, 13) }, later)).toBe(false);
  });

  it('finds the mails due by their time, oldest first, a reminder only on its day; dropped and sent ones never', async () => {
    await directory.putMail({ clientUserId: 'p-2', step: 'reminder-1', state: 'due', at: at(4) });
    await directory.putMail({ clientUserId: 'p-1', step: 'reminder-1', state: 'due', at: at(8) });
    await directory.putMail({ clientUserId: 'p-3', step: 'invitation', state: 'due', at: at(2) });
    await directory.putMail({ clientUserId: 'p-4', step: 'invitation', state: 'sent', at: at(1) });
    await directory.putMail({
      clientUserId: 'p-5',
      step: 'reminder-1',
      state: 'dropped',
      reason: 'nothing left to do',
      at: at(1),
    });
    await store
      .directory('other-service')
      .putMail({ clientUserId: 'p-9', step: 'invitation', state: 'due', at: at(1) });
    const due = async (day: number, limit = 10) =>
      (await directory.mailsDue(at(day), at(1), limit)).map((m) => `${m.clientUserId} ${m.step}`);
    expect(await due(3)).toEqual(['p-3 invitation']);
    expect(await due(5)).toEqual(['p-3 invitation', 'p-2 reminder-1']);
    expect(await due(9)).toEqual(['p-3 invitation', 'p-2 reminder-1', 'p-1 reminder-1']);
    expect(await due(9, 2)).toEqual(['p-3 invitation', 'p-2 reminder-1']);
    // A dropped mail stays dropped unless sent after all; a due reminder is dropped.
    expect(await directory.putMail({ clientUserId: 'p-1', step: 'reminder-1', state: 'dropped', at: at(9) })).toBe(
      true,
    );
    expect(await due(9)).toEqual(['p-3 invitation', 'p-2 reminder-1']);
  });

  it("a payer's links, oldest first; the directory a page at a time in the order of its ids", async () => {
    const link = (id: string, day: number) => ({
      tokenHash: newLinkToken().tokenHash,
      clientUserId: id,
      createdAt: at(day),
      expiresAt: at(day + 20),
    });
    const [second, first, other] = [link('p-1', 3), link('p-1', 1), link('p-2', 2)];
    for (const l of [second, first, other]) await directory.addLink(l);
    await directory.openedLink(first.tokenHash, at(2));
    expect(await directory.links(['p-1'])).toEqual([{ ...first, openedAt: at(2) }, second]);
    expect((await directory.links(['p-1', 'p-2', 'p-3'])).length).toBe(3);

    await directory.putEntries(['c', 'a', 'e', 'b', 'd'].map((id) => entry(id)));
    expect((await directory.entriesAfter('', 2)).map((e) => e.clientUserId)).toEqual(['a', 'b']);
    expect((await directory.entriesAfter('b', 2)).map((e) => e.clientUserId)).toEqual(['c', 'd']);
    expect(await directory.entriesAfter('d', 2)).toEqual([entry('e')]);
  });
});

describe('how an agreement was signed', () => {
  it('the first record stands; read by payers', async () => {
    expect(await directory.sign({ clientUserId: 'p-1', how: 'row', at: '2026-12-01T10:00:00.000Z' })).toBe(true);
    expect(await directory.sign({ clientUserId: 'p-1', how: 'page', at: '2026-12-02T10:00:00.000Z' })).toBe(false);
    expect(await directory.sign({ clientUserId: 'p-2', how: 'elsewhere', at: '2026-12-03T10:00:00.000Z' })).toBe(true);
    expect(await directory.signatures(['p-1', 'p-2', 'p-3'])).toEqual(
      new Map([
        ['p-1', { clientUserId: 'p-1', how: 'row', at: '2026-12-01T10:00:00.000Z' }],
        ['p-2', { clientUserId: 'p-2', how: 'elsewhere', at: '2026-12-03T10:00:00.000Z' }],
      ]),
    );
  });
});

describe('forgetting a payer', () => {
  it('erases its entry and links and its mails’ reasons; keeps the steps mailed and the signature; others untouched', async () => {
    await directory.putEntries([entry('p-1'), entry('p-2')]);
    const kept = newLinkToken().tokenHash;
    for (const [id, tokenHash] of [
      ['p-1', newLinkToken().tokenHash],
      ['p-1', newLinkToken().tokenHash],
      ['p-2', kept],
    ] as const)
      await directory.addLink({ tokenHash, clientUserId: id, createdAt: 'c', expiresAt: 'e' });
    await directory.putMail({
      clientUserId: 'p-1',
      step: 'invitation',
      state: 'refused',
      reason: 'no such user',
      at: 'a',
    });
    await directory.sign({ clientUserId: 'p-1', how: 'page', at: 'a' });

    expect(await directory.forget('p-1')).toEqual({ entry: true, links: 2, mails: 1, signature: true });
    expect(await directory.entries(['p-1', 'p-2'])).toEqual(new Map([['p-2', entry('p-2')]]));
    expect(await directory.mails(['p-1'])).toEqual([
      { clientUserId: 'p-1', step: 'invitation', state: 'refused', at: 'a' },
    ]);
    expect((await directory.signatures(['p-1'])).get('p-1')?.how).toBe('page');
    expect(await directory.link(kept)).toBeDefined();
    // Forgotten again: only what is kept is left.
    expect(await directory.forget('p-1')).toEqual({ entry: false, links: 0, mails: 1, signature: true });
    expect(await directory.forget('nobody')).toBeUndefined();
  });

  it("the journal's forgetting of a service and key (a key never accepted) takes its directory too", async () => {
    await store.journal(SERVICE).write([{ directory: entry('p-1') }, { setting: 'opened', value: 'now' }]);
    expect((await directory.entries(['p-1'])).size).toBe(1);
    await store.journal(SERVICE).forget();
    expect((await directory.entries(['p-1'])).size).toBe(0);
  });
});
