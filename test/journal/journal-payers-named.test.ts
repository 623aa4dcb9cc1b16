import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPayersNamed, payerKeyOf } from '../../src/journal/RowJournal.js';
import { openStore } from '../../src/store/openStore.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

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
});
