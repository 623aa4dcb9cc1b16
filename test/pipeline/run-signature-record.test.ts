import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import type { SignatureRecord } from '../../src/store/Store.js';
import { harness, payersCsv } from '../helpers/runHarness.js';

// Whose word an agreement's completion rests on is kept in the store: the row's (the team collected the signature),
// the operator's for the whole file, or the payer's own on their page, which a later run then completes.

let h: Awaited<ReturnType<typeof harness>>;
afterEach(async () => {
  await h?.close();
});

async function withDirectory<T>(
  act: (directory: ReturnType<Awaited<ReturnType<typeof openStore>>['directory']>) => Promise<T>,
): Promise<T> {
  const store = await openStore({ stateDir: h.tmp.path('state'), databaseUrl: h.store.env.PAYER_ONBOARD_DATABASE_URL });
  try {
    const [service] = await store.services();
    return await act(store.directory(service!));
  } finally {
    await store.close();
  }
}

const signatures = (ids: string[]) =>
  withDirectory(async (d) =>
    [...(await d.signatures(ids)).values()].map((s: SignatureRecord) => [s.clientUserId, s.how]).sort(),
  );

describe('the record of a signature', () => {
  it("a row's own cell is recorded as the row's, the operator's flag as elsewhere; an unsigned payer has none", async () => {
    h = await harness({ kycAfter: 0 });
    const byRow = h.tmp.write('row.csv', payersCsv(['r-1', 'r-2'], { 'r-2': { agreementCompleted: '' } }));
    await h.run({ inputs: [byRow] });
    const byFlag = h.tmp.write('flag.csv', payersCsv(['f-1'], { 'f-1': { agreementCompleted: '' } }));
    await h.run({ inputs: [byFlag], agreementSignedElsewhere: true });
    expect(await signatures(['r-1', 'r-2', 'f-1'])).toEqual([
      ['f-1', 'elsewhere'],
      ['r-1', 'row'],
    ]);
  });

  it('a payer who signed on their page: the next run of their row completes the agreement, once, and the record stays theirs', async () => {
    h = await harness({ kycAfter: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(['p-1'], { 'p-1': { agreementCompleted: '' } }));
    const first = await h.run({ inputs: [input] });
    expect(first.results[0]).toMatchObject({ outcome: 'waiting', agreementCompleted: 'false' });
    expect(h.sandbox.stats().byRoute.agreement).toBe(0);

    await withDirectory((d) => d.sign({ clientUserId: 'p-1', how: 'page', at: new Date().toISOString() }));
    const second = await h.run({ inputs: [input] });
    expect(second.results[0]).toMatchObject({ outcome: 'ok', agreementCompleted: 'true' });
    expect(h.sandbox.stats().agreementsCompleted).toBe(1);
    const third = await h.run({ inputs: [input] });
    expect(third.results[0]!.steps).toContain('agreement=done-before');
    expect(h.sandbox.stats().byRoute.agreement).toBe(1);
    expect(await signatures(['p-1'])).toEqual([['p-1', 'page']]);
  });
});
