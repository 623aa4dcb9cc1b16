import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPayersNamed, payerKeyOf } from '../../src/journal/RowJournal.js';
import { openStore } from '../../src/store/openStore.js';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';
import { UNDO_CONTROLS } from '../helpers/undoMigrations.js';

let tmp: ReturnType<typeof tempDir>;
let backend: TestStore;
beforeEach(async () => {
  tmp = tempDir();
  backend = await testStore(tmp.path('state'));
});
afterEach(async () => {
  await backend.close();
  tmp.remove();
});

describe("the payers a batch of events names, looked up by the journal's index", () => {
  it('knows the payers the journal has, by clientUserId or by the userId the service gave it; no other', async () => {
    const where = { stateDir: tmp.path('state'), databaseUrl: backend.env.PAYER_ONBOARD_DATABASE_URL };
    const store = await openStore(where);
    const record = { agreementDone: false, accountIds: [], accountsKnown: false, since: '2026-12-01T00:00:00Z' };
    await store.journal('svc').write([
      { payer: payerKeyOf('p-1'), record: { ...record, userId: 'u-1' } },
      { payer: payerKeyOf('p-2'), record: { ...record, userId: 'u-2' } },
    ]);
    await store.close();
    const named = await journalPayersNamed({ ...where, service: 'svc', jsonl: [] }, [
      { clientUserId: 'p-1' },
      { userId: 'u-2' },
      { clientUserId: 'nobody' },
      { userId: 'u-unknown' },
    ]);
    expect(named.knows(payerKeyOf('p-1'))).toBe(true);
    expect(named.keyOfUser('u-2')).toBe(payerKeyOf('p-2'));
    expect(named.knows(payerKeyOf('p-2'))).toBe(true);
    expect(named.knows(payerKeyOf('nobody'))).toBe(false);
    expect(named.keyOfUser('u-unknown')).toBeUndefined();
  });

  it("finds an account's payer by the index, with the clientUserId a run kept beside it; no other account", async () => {
    const where = { stateDir: tmp.path('state'), databaseUrl: backend.env.PAYER_ONBOARD_DATABASE_URL };
    const store = await openStore(where);
    const record = { agreementDone: true, accountsKnown: false, since: '2026-12-01T00:00:00Z' };
    const journal = store.journal('svc');
    await journal.write([
      { payer: payerKeyOf('p-1'), record: { ...record, accountIds: [['a1', 'pd-1']] }, clientUserId: 'p-1' },
      // A payer written without its clientUserId (an old journal imported): its account is found, its id is not.
      { payer: payerKeyOf('p-2'), record: { ...record, accountIds: [['a2', 'pd-2']] } },
    ]);
    // A later write of p-1 with a second account keeps the first; p-2's id comes with a later run's write.
    await journal.write([
      {
        payer: payerKeyOf('p-1'),
        record: {
          ...record,
          accountIds: [
            ['a1', 'pd-1'],
            ['a3', 'pd-3'],
          ],
        },
        clientUserId: 'p-1',
      },
      // An id another payer's index holds stays that payer's.
      {
        payer: payerKeyOf('p-2'),
        record: {
          ...record,
          accountIds: [
            ['a2', 'pd-2'],
            ['a9', 'pd-1'],
          ],
        },
        clientUserId: 'p-2',
      },
    ]);
    expect(await journal.payerOfAccount('pd-1')).toEqual({ key: payerKeyOf('p-1'), clientUserId: 'p-1' });
    expect(await journal.payerOfAccount('pd-3')).toEqual({ key: payerKeyOf('p-1'), clientUserId: 'p-1' });
    expect(await journal.payerOfAccount('pd-2')).toEqual({ key: payerKeyOf('p-2'), clientUserId: 'p-2' });
    expect(await store.journal('other').payerOfAccount('pd-1')).toBeUndefined();
    await store.close();

    const named = await journalPayersNamed({ ...where, service: 'svc', jsonl: [] }, [
      { paymentDetailId: 'pd-3' },
      { paymentDetailId: 'pd-unknown' },
      { paymentDetailId: 'pd-unknown', clientUserId: 'p-2' },
    ]);
    expect(named.ofAccount('pd-3')).toEqual({ key: payerKeyOf('p-1'), clientUserId: 'p-1' });
    expect(named.knows(payerKeyOf('p-1'))).toBe(true);
    expect(named.ofAccount('pd-unknown')).toBeUndefined();
    expect(named.knows(payerKeyOf('p-2'))).toBe(true);
  });

  it('the payers given a new bank account in a stretch of time, by clientUserId: not those whose accounts came before', async () => {
    const where = { stateDir: tmp.path('state'), databaseUrl: backend.env.PAYER_ONBOARD_DATABASE_URL };
    const store = await openStore(where);
    const tables = store.journal('svc');
    const payer = (id: string, checkedAt: string, accountIds: Array<[string, string]>, kycStatus = 'approved') => ({
      payer: payerKeyOf(id),
      record: { agreementDone: true, accountsKnown: false, kycStatus, checkedAt, accountIds },
      clientUserId: id,
    });
    await tables.write([payer('early', '2026-12-02T07:00:00.000Z', [['a', 'pd-e']])]);
    await tables.write([payer('late', '2026-12-02T07:00:00.000Z', [])]);
    await tables.write([payer('late', '2026-12-02T08:05:00.000Z', [['a', 'pd-l']])]);
    // A later change of the early payer's statuses, its account as it was: no new account.
    await tables.write([payer('early', '2026-12-02T08:06:00.000Z', [['a', 'pd-e']], 'retry_required')]);
    await tables.write([payer('after', '2026-12-02T09:30:00.000Z', [['a', 'pd-a']])]);
    expect(await tables.payersWithNewAccounts('2026-12-02T08:00:00.000Z', '2026-12-02T09:00:00.000Z')).toEqual([
      'late',
    ]);
    expect(await tables.payersWithNewAccounts('2026-12-02T06:00:00.000Z', '2026-12-02T10:00:00.000Z')).toEqual([
      'after',
      'early',
      'late',
    ]);
    await store.close();
  });

  it('a store from before the index: the accounts its payers hold are indexed when it is opened, with the clientUserId of rows waiting', async () => {
    const where = { stateDir: tmp.path('state'), databaseUrl: backend.env.PAYER_ONBOARD_DATABASE_URL };
    const store = await openStore(where);
    const record = { agreementDone: true, accountsKnown: false };
    await store.journal('svc').write([
      {
        payer: payerKeyOf('p-1'),
        record: {
          ...record,
          accountIds: [
            ['a1', 'pd-1'],
            ['a2', 'pd-2'],
          ],
        },
        clientUserId: 'p-1',
      },
      { payer: payerKeyOf('p-2'), record: { ...record, accountIds: [] } },
    ]);
    await store.close();
    await sql(where, [
      // The store as version 8 left it: the steps after it undone.
      ...UNDO_CONTROLS,
      'DELETE FROM schema_migrations WHERE version >= 9',
      'DROP TABLE journal_accounts',
      ...['payer_directory', 'payer_links', 'payer_mails', 'payer_signatures'].map((t) => `DROP TABLE ${t}`),
      // A payer whose list is not pairs, and one whose list is not a list: read past, as the code reads them.
      `INSERT INTO journal_payers (service, key, account_ids) VALUES ('svc', 'odd-1', '["x", ["a3"], 7]')`,
      `INSERT INTO journal_payers (service, key, account_ids) VALUES ('svc', 'odd-2', '{"a": 1}')`,
      // A row of p-1 waiting: its clientUserId.
      `INSERT INTO waiting_rows (service, file_id, seq, part, payer_key, client_user_id, original, completed_steps)
       VALUES ('svc', 'f-1', 1, 0, '${payerKeyOf('p-1')}', 'p-1', '{}', '')`,
    ]);
    const again = await openStore(where);
    const known = { key: payerKeyOf('p-1'), clientUserId: 'p-1' };
    expect(await again.journal('svc').payerOfAccount('pd-2')).toEqual(known);
    expect(await again.journal('svc').payerOfAccount('pd-1')).toEqual(known);
    expect(await again.journal('svc').payerOfAccount('a3')).toBeUndefined();
    await again.close();
  });
});

/** Statements run on the store as it is, whichever backend (what an older version left). */
async function sql(where: { stateDir: string; databaseUrl?: string | undefined }, statements: string[]) {
  if (where.databaseUrl === undefined) {
    const db = new DatabaseSync(join(where.stateDir, STORE_FILE));
    for (const statement of statements) db.exec(statement);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: where.databaseUrl });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}
