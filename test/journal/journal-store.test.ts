import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/Journal.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/Store.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

let tmp: ReturnType<typeof tempDir>;
let store: TestStore;
beforeEach(async () => {
  tmp = tempDir();
  store = await testStore(tmp.dir);
});
afterEach(async () => {
  await store.close();
  tmp.remove();
});

const SERVICE = 'api.example.com-0123456789ab';
const key = (n: number) => n.toString(16).padStart(8, '0').repeat(4);
const openBackend = () => openStore({ stateDir: tmp.dir, databaseUrl: store.env.PAYER_ONBOARD_DATABASE_URL });
const open = async () => (await Journal.open(await openBackend(), SERVICE)).journal;

describe('the journal over the store', () => {
  it('takes back a call that certainly changed nothing, but never a done one; and so after reopening', async () => {
    const journal = await open();
    await journal.sent(key(1));
    await journal.notDone(key(1));
    await journal.sent(key(2));
    journal.done(key(2), 201, { id: 'pd-2' });
    await journal.notDone(key(2));
    await journal.sent(key(3));
    expect(await journal.get(key(1))).toBeUndefined();
    expect(await journal.get(key(2))).toEqual({ state: 'done', status: 201, answer: { id: 'pd-2' } });
    expect(await journal.get(key(3))).toEqual({ state: 'sent' });
    await journal.close();
    const reopened = await open();
    expect(await reopened.get(key(1))).toBeUndefined();
    expect(await reopened.get(key(2))).toMatchObject({ state: 'done' });
    // A done call stays done when it is sent again; one taken back is in doubt again.
    await reopened.sent(key(2), { b: '[]' });
    await reopened.sent(key(1));
    expect(await reopened.get(key(2))).toMatchObject({ state: 'done' });
    expect(await reopened.get(key(1))).toEqual({ state: 'sent' });
    await reopened.close();
  });

  it('says whether the run before closed it: after a crash its last records may be lost', async () => {
    const first = await open();
    expect(first.closedCleanly).toBe(false);
    await first.sent(key(1));
    await first.close();
    const second = await open();
    expect(second.closedCleanly).toBe(true);
    expect(await second.get(key(1))).toEqual({ state: 'sent' });
    // Another process opens it while this one has not closed it (it was killed): nothing says all of it is there.
    await second.sent(key(2));
    const afterCrash = await open();
    expect(afterCrash.closedCleanly).toBe(false);
    expect(await afterCrash.get(key(2))).toEqual({ state: 'sent' });
    await afterCrash.close();
    await second.close();
  });

  it('reads answers back, in the same run before they are written and after reopening', async () => {
    const journal = await open();
    const answer = (n: number) => ({ userId: `u-${n}`, kycUrl: `https://kyc.example/${n}?ü=${'x'.repeat(n % 50)}` });
    for (let n = 0; n < 500; n++) {
      await journal.sent(key(n), { b: JSON.stringify([`pd-${n}`]) });
      journal.done(key(n), 201, answer(n));
      // Queued, not written yet: read back from memory.
      expect(await journal.get(key(n))).toEqual({ state: 'done', status: 201, answer: answer(n) });
    }
    await journal.close();
    const again = await open();
    for (const n of [0, 1, 250, 499])
      expect(await again.get(key(n))).toEqual({ state: 'done', status: 201, answer: answer(n) });
    expect(await again.get(key(500))).toBeUndefined();
    await again.close();
  });

  it('keeps what a record said when writing it fails, as it is read back, and stops: the failure is told once', async () => {
    const backend = await openBackend();
    // The store starts refusing writes (a disk gone full) once the journal is open.
    let full = false;
    const failing: Store = Object.assign(Object.create(backend) as Store, {
      journal: (service: string) => {
        const tables = backend.journal(service);
        return Object.assign(Object.create(tables), {
          write: (batch: Parameters<typeof tables.write>[0]) =>
            full ? Promise.reject(new Error('database or disk is full')) : tables.write(batch),
        });
      },
    });
    const { journal } = await Journal.open(failing, SERVICE);
    const failures: Error[] = [];
    journal.onFailure = (error) => failures.push(error);
    await journal.sent(key(1));
    full = true;
    journal.done(key(1), 201, { id: 'pd-1' });
    await journal.flush();
    expect(failures.map((e) => e.message)).toEqual(['database or disk is full']);
    expect(await journal.get(key(1))).toEqual({ state: 'done', status: 201, answer: { id: 'pd-1' } });
    await journal.sent(key(1));
    // A call it cannot record first must not go out: sent() says so.
    await expect(journal.sent(key(2))).rejects.toThrow('the journal cannot record this call');
    expect(await journal.get(key(1))).toMatchObject({ state: 'done' });
    expect(failures).toHaveLength(1);
    await journal.close();
    // Not marked closed: the next run knows records of this one are missing.
    const next = await open();
    expect(next.closedCleanly).toBe(false);
    expect(await next.get(key(1))).toEqual({ state: 'sent' });
    await next.close();
  });
});
