import { afterEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

// A journal is one writer's memory. The same service and key may have others: a run on a laptop with a state dir of
// its own, the service's dashboard, another tool. Whatever a journal knows of a payer's accounts, what is stored is
// read before one is created.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => `tw-${i + 1}`);

describe('two writers of one service and key, one after the other', () => {
  it("the server's journal saw its payers before approval; a laptop attached their accounts; the server creates none again", async () => {
    // The service gates bank accounts on KYC; nobody is approved yet.
    h = await harness({ kycAfter: undefined });
    const payers = ids(5);
    const input = h.tmp.write('payers.csv', payersCsv(payers));
    const server = h.tmp.path('server-state');
    const first = await h.run({ inputs: [input], stateDir: server });
    expect(first.results.map((r) => r.outcome)).toEqual(payers.map(() => 'waiting'));
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(0);

    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    // A person runs the pending file on a laptop: a journal of its own, which attaches every account.
    const laptop = await h.run({ inputs: [input], stateDir: h.tmp.path('laptop-state') });
    expect(laptop.results.map((r) => r.outcome)).toEqual(payers.map(() => 'ok'));
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(5);

    // The server's next run: its journal knew every account of these payers (none), yet reads before creating.
    const again = await h.run({ inputs: [input], stateDir: server });
    expect(again.results.map((r) => [r.outcome, r.steps])).toEqual(
      payers.map(() => ['ok', 'compliance=done-before payment-details=done-before agreement=done-before']),
    );
    expect(again.results.map((r) => r.paymentDetailId)).toEqual(laptop.results.map((r) => r.paymentDetailId));
    expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 5, duplicatePaymentDetails: 0 });
  });

  it('an account added at the service meanwhile (its dashboard, another tool) is never created again', async () => {
    h = await harness({ kycAfter: undefined });
    const input = h.tmp.write('payers.csv', payersCsv(['dash-1']));
    // Twice before approval: the journal learns the gate, then sees the payer behind it, and so knows it has no account.
    await h.run({ inputs: [input] });
    await h.run({ inputs: [input] });
    h.sandbox.setKyc('dash-1', 'approved');
    // The row's own account, added by someone else with the same numbers.
    const other = await h.run({ inputs: [input], stateDir: h.tmp.path('another-tool') });
    expect(other.results[0]!.outcome).toBe('ok');
    const again = await h.run({ inputs: [input] });
    expect(again.results[0]).toMatchObject({ outcome: 'ok', paymentDetailId: other.results[0]!.paymentDetailId });
    expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 1, duplicatePaymentDetails: 0 });
  });
});
