import { describe, expect, it } from 'vitest';
import { type PayerFacts, payerSteps } from '../../src/web/payerPageState.js';
import { payerPage, stepSections } from '../../src/web/payerPageView.js';

// What the payer's page shows from what serve knows: each step's state, pure, and the page it makes.

const links = { agreementUrl: 'https://svc.example/agree/u-1', kycUrl: 'https://svc.example/kyc/u-1' };
const facts = (over: Partial<PayerFacts> = {}): PayerFacts => ({
  entry: { clientUserId: 'p-1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', updatedAt: '' },
  journal: { ...links, kycStatus: 'not_started', agreementStatus: 'not_started' },
  signed: false,
  waiting: true,
  ...over,
});
const steps = (over: Partial<PayerFacts> = {}) => {
  const { agreement, kyc, bank, done } = payerSteps(facts(over));
  return { agreement, kyc, bank, done };
};

describe('payerSteps', () => {
  it('a payer just registered: sign, verify, and the bank account waits for both', () => {
    expect(steps()).toEqual({ agreement: 'sign', kyc: 'not-started', bank: 'waiting', done: false });
  });

  it('each step as the service words it', () => {
    expect(steps({ signed: true }).agreement).toBe('recording');
    expect(steps({ journal: { ...links, agreementStatus: 'completed' } }).agreement).toBe('done');
    expect(steps({ journal: { ...links, agreementStatus: 'rejected' } }).agreement).toBe('problem');
    expect(steps({ journal: undefined })).toEqual({
      agreement: 'not-ready',
      kyc: 'not-ready',
      bank: 'waiting',
      done: false,
    });
    expect(steps({ journal: { ...links, kycStatus: 'pending' } }).kyc).toBe('pending');
    expect(steps({ journal: { ...links, kycStatus: 'retry_required' } }).kyc).toBe('retry');
    expect(steps({ journal: { ...links, kycStatus: 'rejected' } }).kyc).toBe('rejected');
    expect(steps({ journal: { ...links, kycStatus: 'completed' } }).kyc).toBe('approved');
  });

  it("the bank account: on its way while rows wait, checked once stored, the service's word after a read", () => {
    const ready = { ...links, kycStatus: 'approved', agreementStatus: 'completed' };
    expect(steps({ journal: ready }).bank).toBe('adding');
    expect(steps({ journal: { ...ready, accounts: 1 } }).bank).toBe('checking');
    expect(steps({ journal: { ...ready, accounts: 1 }, category: 'bank-failed' }).bank).toBe('failed');
    expect(steps({ journal: { ...ready, accounts: 1 }, category: 'payable' })).toMatchObject({
      bank: 'approved',
      done: true,
    });
    // Nothing waits and no account was given: none is needed.
    expect(steps({ journal: ready, waiting: false })).toMatchObject({ bank: 'none', done: true });
  });

  it('greets the first name; a business without one by its company; else no one', () => {
    expect(payerSteps(facts()).name).toBe('Ada');
    expect(payerSteps(facts({ entry: { clientUserId: 'p-1', companyName: 'Acme Ltd', updatedAt: '' } })).name).toBe(
      'Acme Ltd',
    );
    expect(payerSteps(facts({ entry: undefined })).name).toBe('');
  });
});

describe('the page', () => {
  it('holds the first name and no other value of the payer; every value escaped', () => {
    const page = payerPage(
      payerSteps(
        facts({ entry: { clientUserId: 'p-1', firstName: '<b>Ada</b>', lastName: 'Lovelace', updatedAt: '' } }),
      ),
      { csrf: 'n.mac', origins: ['https://svc.example'] },
    );
    expect(page).toContain('<h1>Hello &lt;b&gt;Ada&lt;/b&gt;</h1>');
    expect(page).not.toMatch(/Lovelace|ada@example\.com|p-1/);
    expect(page).toContain('<iframe src="https://svc.example/agree/u-1" title="The agreement of the payments service"');
    expect(page).toContain('href="https://svc.example/kyc/u-1" target="_blank" rel="noopener noreferrer"');
    expect(payerPage(payerSteps(facts({ entry: undefined })), { csrf: '', origins: [] })).toContain('<h1>Hello</h1>');
  });

  it("a section's key changes only with what it shows", () => {
    const before = stepSections(payerSteps(facts()));
    const after = stepSections(payerSteps(facts({ journal: { ...links, kycStatus: 'pending' } })));
    expect(after[0]!.key).toBe(before[0]!.key);
    expect(after[1]!.key).not.toBe(before[1]!.key);
    expect(
      stepSections(
        payerSteps(
          facts({ journal: { ...links, kycStatus: 'approved', agreementStatus: 'completed' }, waiting: false }),
        ),
      ),
    ).toEqual([
      expect.objectContaining({ id: 'done', html: expect.stringContaining('Nothing more to do. Thank you.') }),
    ]);
  });
});
