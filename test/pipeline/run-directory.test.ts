import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { openStore, storeMayHold } from '../../src/store/openStore.js';
import type { DirectoryEntry } from '../../src/store/Store.js';
import { API_KEY, harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';

// Every run fills the payer directory with the names, e-mail and company of each valid payer row it takes, done
// before or not; validate and --dry-run write nothing. (The postgres project runs this file on PostgreSQL too.)

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** A payers file with a company column: `a-2` a business, `a-3` a row no run takes (its e-mail is not one). */
function payersFile(name: string, email2 = 'a-2@example.com'): string {
  const rows = [
    `${payerRow('a-1')},`,
    `${payerRow('a-2', { beneficiaryType: 'business', firstName: 'Grace', lastName: 'Hopper', email: email2 })},Acme Ltd`,
    `${payerRow('a-3', { email: 'not an address' })},`,
  ];
  return h.tmp.write(name, `${PAYER_HEADER},companyName\n${rows.join('\n')}\n`);
}

const where = () => ({ stateDir: h.tmp.path('state'), databaseUrl: h.store.env.PAYER_ONBOARD_DATABASE_URL });

/** The directory of the sandbox's service and key, by payer; none where no store was made. */
async function directory(): Promise<Map<string, DirectoryEntry>> {
  if (!storeMayHold(where())) return new Map();
  const store = await openStore(where());
  try {
    return await store.directory(journalName(h.sandbox.url, API_KEY)).entries(['a-1', 'a-2', 'a-3']);
  } finally {
    await store.close();
  }
}

/** The entries without their times, in id order. */
const shown = (entries: Map<string, DirectoryEntry>) =>
  [...entries.values()]
    .map(({ updatedAt: _, ...entry }) => entry)
    .sort((a, b) => a.clientUserId.localeCompare(b.clientUserId));

describe('a run fills the payer directory', () => {
  it("with each valid payer row's names, e-mail and company, nothing else; a re-run sends nothing and changes only what changed", async () => {
    const first = await h.run({ inputs: [payersFile('payers.csv')] });
    expect(first.results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'invalid']);
    const filled = await directory();
    expect(shown(filled)).toEqual([
      { clientUserId: 'a-1', firstName: 'Ada', lastName: 'Lovelace', email: 'a-1@example.com' },
      {
        clientUserId: 'a-2',
        firstName: 'Grace',
        lastName: 'Hopper',
        email: 'a-2@example.com',
        companyName: 'Acme Ltd',
      },
    ]);
    expect(filled.get('a-1')!.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // The same payers again, a-2 with a new address: nothing sent, a-2's entry changed, a-1's left as it was.
    const requests = h.sandbox.stats().requests;
    const again = await h.run({ inputs: [payersFile('again.csv', 'grace@example.com')] });
    expect(h.sandbox.stats().requests).toBe(requests);
    expect(again.results.map((r) => r.steps)).toEqual([
      'compliance=done-before payment-details=done-before agreement=done-before',
      'compliance=done-before payment-details=done-before agreement=done-before',
      '',
    ]);
    const after = await directory();
    expect(after.get('a-2')).toMatchObject({ email: 'grace@example.com', companyName: 'Acme Ltd' });
    expect(after.get('a-2')!.updatedAt > filled.get('a-2')!.updatedAt).toBe(true);
    expect(after.get('a-1')).toEqual(filled.get('a-1'));
  });

  it('validate and --dry-run write nothing', async () => {
    const input = payersFile('payers.csv');
    const checked = await h.run({ inputs: [input], command: 'validate' });
    expect(checked.summary.exitCode).toBe(1);
    const dry = await h.run({ inputs: [input], dryRun: true });
    expect(dry.results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'invalid']);
    expect(h.sandbox.stats().requests).toBe(0);
    expect(await directory()).toEqual(new Map());
  });
});
