import { describe, expect, it } from 'vitest';
import { payerKeyOf } from '../../src/journal/RowJournal.js';
import type { RecordedEvent } from '../../src/serve/EventLog.js';
import { planEvents, type WaitingPayer } from '../../src/serve/planEvents.js';

let n = 0;
const ev = (fields: Omit<RecordedEvent, 'id' | 'at'>): RecordedEvent => ({
  id: `e${++n}`,
  at: '2026-11-28T10:00:00Z',
  ...fields,
});

// The journal knows p-1 (userId u-1), p-2, p-3 and p-4; p-1 waits in two files, p-2 in one, p-3 and p-4 in none. Its
// index of accounts holds pd-3 of p-3 with the clientUserId kept beside it, and pd-4 of p-4 without (an account
// known from before the index kept them).
const accounts = new Map([
  ['pd-3', { key: payerKeyOf('p-3'), clientUserId: 'p-3' }],
  ['pd-4', { key: payerKeyOf('p-4') }],
]);
const journal = {
  knows: (key: string) => ['p-1', 'p-2', 'p-3', 'p-4'].map(payerKeyOf).includes(key),
  keyOfUser: (userId: string) => (userId === 'u-1' ? payerKeyOf('p-1') : undefined),
  ofAccount: (id: string) => accounts.get(id),
};
const waiting = new Map<string, WaitingPayer[]>([
  [
    payerKeyOf('p-1'),
    [
      { file: 'pending-a.csv', clientUserId: 'p-1' },
      { file: 'pending-b.csv', clientUserId: 'P-1' },
    ],
  ],
  [payerKeyOf('p-2'), [{ file: 'pending-a.csv', clientUserId: 'p-2' }]],
]);

describe('planEvents', () => {
  it('a payer approved (by clientUserId or by userId) runs each file its rows wait in, each payer once', () => {
    const work = planEvents(
      [
        ev({ event: 'compliance.updated', clientUserId: 'p-1', kycStatus: 'approved' }),
        ev({ event: 'compliance.updated', userId: 'u-1', kycStatus: 'approved' }),
        ev({ event: 'compliance.updated', clientUserId: 'p-2' }),
      ],
      journal,
      waiting,
    );
    expect(Object.fromEntries([...work.runs].map(([file, ids]) => [file, [...ids]]))).toEqual({
      'pending-a.csv': ['p-1', 'p-2'],
      'pending-b.csv': ['P-1'],
    });
    expect(work.ignored).toEqual([]);
  });

  it('the payer signed on their page: their waiting rows run, whatever their KYC, so the agreement goes out', () => {
    const work = planEvents([ev({ event: 'agreement.signed', clientUserId: 'p-2' })], journal, waiting);
    expect([...work.runs]).toEqual([['pending-a.csv', new Set(['p-2'])]]);
    expect(work.ignored).toEqual([]);
  });

  it('KYC still under way costs nothing; a word it does not know (or rejected) is read', () => {
    const work = planEvents(
      [
        ev({ event: 'compliance.updated', clientUserId: 'p-1', kycStatus: 'pending' }),
        ev({ event: 'compliance.updated', clientUserId: 'p-2', kycStatus: 'rejected' }),
      ],
      journal,
      waiting,
    );
    expect([...work.runs.keys()]).toEqual(['pending-a.csv']);
    expect([...work.runs.get('pending-a.csv')!]).toEqual(['p-2']);
    expect(work.ignored.map((i) => i.reason)).toEqual(['kyc-not-yet']);
  });

  it('ignores, with the reason: other event types, payers the journal does not know, payers with nothing waiting', () => {
    const work = planEvents(
      [
        ev({ event: 'payer.deleted', clientUserId: 'p-1' }),
        ev({ event: 'compliance.updated', clientUserId: 'stranger', kycStatus: 'approved' }),
        ev({ event: 'compliance.updated', userId: 'u-unknown', kycStatus: 'approved' }),
        ev({ event: 'compliance.updated', kycStatus: 'approved' }),
        ev({ event: 'compliance.updated', clientUserId: 'p-3', kycStatus: 'approved' }),
      ],
      journal,
      waiting,
    );
    expect(work.ignored.map((i) => i.reason)).toEqual([
      'unknown-event',
      'unknown-payer',
      'unknown-payer',
      'unknown-payer',
      'nothing-waiting',
    ]);
    expect(work.runs.size).toBe(0);
  });

  it('a bank account failed asks for a check of the payer; other account statuses ask for nothing', () => {
    const work = planEvents(
      [
        ev({ event: 'payment_detail.updated', clientUserId: 'p-3', paymentDetailId: 'pd-1', status: 'FAILED' }),
        ev({ event: 'payment_detail.updated', userId: 'u-1', paymentDetailId: 'pd-2', status: 'failed' }),
        ev({ event: 'payment_detail.updated', clientUserId: 'p-2', paymentDetailId: 'pd-5', status: 'approved' }),
      ],
      journal,
      waiting,
    );
    expect([...work.bankChecks]).toEqual(['p-3', 'p-1']);
    expect(work.ignored.map((i) => i.reason)).toEqual(['nothing-to-do']);
    expect(work.runs.size).toBe(0);
  });

  it('an account failed that names its account alone: its payer found by the index, and its clientUserId', () => {
    const work = planEvents(
      [
        ev({ event: 'payment_detail.updated', paymentDetailId: 'pd-3', status: 'failed' }),
        // Its clientUserId not kept: read by the one its waiting rows spell, else said.
        ev({ event: 'payment_detail.updated', paymentDetailId: 'pd-4', status: 'failed' }),
        ev({ event: 'payment_detail.updated', paymentDetailId: 'pd-unknown', status: 'failed' }),
        ev({ event: 'payment_detail.updated', paymentDetailId: 'pd-unknown', userId: 'u-1', status: 'failed' }),
      ],
      journal,
      new Map([...waiting, [payerKeyOf('p-4'), []]]),
    );
    expect([...work.bankChecks]).toEqual(['p-3', 'p-1']);
    expect(work.ignored.map((i) => i.reason)).toEqual(['no-payer-id', 'unknown-account']);
    const p4Waiting = new Map([[payerKeyOf('p-4'), [{ file: 'pending-c.csv', clientUserId: 'p-4' }]]]);
    const p4 = planEvents(
      [ev({ event: 'payment_detail.updated', paymentDetailId: 'pd-4', status: 'failed' })],
      journal,
      p4Waiting,
    );
    expect([...p4.bankChecks]).toEqual(['p-4']);
  });

  it("with the web page on, an account approved is read too: the page says payable on the service's word", () => {
    const approved = ev({
      event: 'payment_detail.updated',
      clientUserId: 'p-2',
      paymentDetailId: 'pd-4',
      status: 'approved',
    });
    expect([...planEvents([approved], journal, waiting, { checkApproved: true }).bankChecks]).toEqual(['p-2']);
    expect(planEvents([approved], journal, waiting).bankChecks.size).toBe(0);
  });
});
