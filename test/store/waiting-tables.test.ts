import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import type { Store, WaitingRow, WaitingTables } from '../../src/store/Store.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

// The rows waiting on their payers, on either backend (the postgres project runs this file on PostgreSQL).

let tmp: ReturnType<typeof tempDir>;
let test: TestStore;
let store: Store;
beforeEach(async () => {
  tmp = tempDir();
  test = await testStore(tmp.dir);
  store = await openStore({ stateDir: tmp.dir, databaseUrl: test.env.PAYER_ONBOARD_DATABASE_URL });
});
afterEach(async () => {
  await store.close();
  await test.close();
  tmp.remove();
});

const SERVICE = 'api.example.com-0123456789ab';
const file = (id: string) => ({
  id,
  name: `${id}.csv`,
  format: 'csv',
  shape: '{"parts":[]}',
  addedAt: `2026-12-0${id.length}T00:00:00Z`,
});
const row = (n: number, payer = `p-${n}`): Omit<WaitingRow, 'seq'> => ({
  part: 0,
  payerKey: `key-${payer}`,
  clientUserId: payer,
  original: JSON.stringify([payer, `cell ${n}`]),
  completedSteps: n % 2 === 0 ? 'compliance' : '',
});

/** How many payers have rows waiting, counted 30 rows at a time (a payer's rows may straddle two pages). */
async function payersWaiting(waiting: WaitingTables): Promise<number> {
  let payers = 0;
  for (let after: string | undefined = ''; after !== undefined; ) {
    const page = await waiting.payerCount(after, 30);
    payers += page.payers;
    after = page.last;
  }
  return payers;
}

describe('the rows waiting, in the store', () => {
  it('keeps a file of 250 rows, finds a payer by the index, and replaces the rows run with what they left', async () => {
    const waiting = store.waiting(SERVICE);
    await waiting.replace(
      file('a'),
      [],
      Array.from({ length: 250 }, (_, i) => row(i + 1)),
    );
    expect(await payersWaiting(waiting)).toBe(250);
    // A payer with rows in another file too, and one with 40 rows (more than a page): each counted once.
    await waiting.replace(file('bb'), [], [row(3), ...Array.from({ length: 40 }, () => row(999, 'many'))]);
    expect(await payersWaiting(waiting)).toBe(251);
    await waiting.clear('bb');
    expect(await waiting.ofPayers(['key-p-7', 'key-p-200', 'key-nobody'])).toEqual([
      { fileId: 'a', seq: 7, payerKey: 'key-p-7', clientUserId: 'p-7' },
      { fileId: 'a', seq: 200, payerKey: 'key-p-200', clientUserId: 'p-200' },
    ]);
    const picked = await waiting.rows('a', [200, 7, 150]);
    expect(picked.map((r) => [r.seq, r.clientUserId, r.original, r.completedSteps])).toEqual([
      [7, 'p-7', '["p-7","cell 7"]', ''],
      [150, 'p-150', '["p-150","cell 150"]', 'compliance'],
      [200, 'p-200', '["p-200","cell 200"]', 'compliance'],
    ]);
    // 7 and 200 ran: 7 is done, 200 waits on with what its run left (new steps), numbered after the file's last row.
    await waiting.replace(file('a'), [7, 200], [{ ...row(200), completedSteps: 'compliance,agreement' }]);
    expect(await waiting.ofPayers(['key-p-7', 'key-p-200'])).toEqual([
      { fileId: 'a', seq: 251, payerKey: 'key-p-200', clientUserId: 'p-200' },
    ]);
    expect((await waiting.rows('a', [251]))[0]?.completedSteps).toBe('compliance,agreement');
    expect(await payersWaiting(waiting)).toBe(249);
    // Every other row run, none left: the file goes too.
    const all = Array.from({ length: 251 }, (_, i) => i + 1);
    await waiting.replace(file('a'), all, []);
    expect([await payersWaiting(waiting), await waiting.file('a')]).toEqual([0, undefined]);
  });

  it("finds the rows due: payers never checked, or checked before the time given, by file; another service's none", async () => {
    const journal = store.journal(SERVICE);
    await journal.write([
      {
        payer: 'key-p-1',
        record: { agreementDone: false, accountIds: [], accountsKnown: false, checkedAt: '2026-12-01T10:00:00Z' },
      },
      {
        payer: 'key-p-2',
        record: { agreementDone: false, accountIds: [], accountsKnown: false, checkedAt: '2026-12-01T12:00:00Z' },
      },
    ]);
    const waiting = store.waiting(SERVICE);
    await waiting.replace(file('bb'), [], [row(3)]);
    await waiting.replace(file('a'), [], [row(1), row(2)]);
    await store.waiting('other-service').replace(file('a'), [], [row(9)]);
    const due = await waiting.checkedBefore('2026-12-01T11:00:00Z', { fileId: '', seq: 0 }, 10);
    expect(due.map((p) => [p.fileId, p.clientUserId])).toEqual([
      ['a', 'p-1'],
      ['bb', 'p-3'],
    ]);
    // A page at a time: what comes after the first.
    const next = await waiting.checkedBefore('2026-12-01T11:00:00Z', { fileId: 'a', seq: 1 }, 10);
    expect(next.map((p) => [p.fileId, p.clientUserId])).toEqual([['bb', 'p-3']]);
    expect(await waiting.file('a')).toEqual(file('a'));
  });

  it('a file kept a chunk at a time: its rows numbered on, run only once it is registered; cleared, all of it goes', async () => {
    const waiting = store.waiting(SERVICE);
    await waiting.append('big', [row(1), row(2)]);
    await waiting.append('big', [row(3)]);
    expect(await waiting.file('big')).toBeUndefined();
    expect((await waiting.rows('big', [1, 2, 3])).map((r) => r.clientUserId)).toEqual(['p-1', 'p-2', 'p-3']);
    await waiting.register(file('big'));
    expect(await waiting.file('big')).toEqual(file('big'));
    await waiting.clear('big');
    expect([await waiting.file('big'), await waiting.rows('big', [1, 2, 3])]).toEqual([undefined, []]);
  });
});
