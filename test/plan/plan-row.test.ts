import { formatError } from '../../src/output/results.js';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/apiError.js';
import { finishRow } from '../../src/plan/finishRow.js';
import { applyRound, nextActions, type Action } from '../../src/plan/planRow.js';
import { accountIdentity, complianceDigest, fieldDigests } from '../../src/plan/identity.js';
import { type Answer, startRow, type PlanContext, type RowMemory, type RowWork } from '../../src/plan/rowState.js';
import { STEPS } from '../../src/core/types.js';
import { complianceBody, paymentDetailBody } from '../helpers/executeFixtures.js';

// The plan without HTTP: a row's memory and the service's answers in, the calls it makes and its result out.

const NOW = new Date('2026-11-23T12:00:00Z');
const context = (over: Partial<PlanContext> = {}): PlanContext => ({
  steps: [...STEPS],
  compliancePath: '/v2/payer',
  retries: 3,
  maxWaitDays: 30,
  now: NOW,
  knowledge: { gate: 'unknown' },
  journalWhole: true,
  ...over,
});
const work = (over: Partial<Omit<RowWork, 'identities'>> = {}): RowWork => {
  const details = over.details ?? [paymentDetailBody()];
  return {
    kind: 'payer',
    clientUserId: 'payer-001',
    compliance: complianceBody(),
    completeAgreement: true,
    carried: { steps: [] },
    ...over,
    details,
    identities: details.map(accountIdentity),
  };
};
const fresh: RowMemory = { accounts: [{ state: 'unknown' }] };
const ok = <T>(body: T): Answer<never> => ({ ok: true, body }) as Answer<never>;
const http = (
  step: 'compliance' | 'payment-details' | 'agreement',
  status: number,
  serverMessage?: string,
): Answer<never> =>
  ({
    ok: false,
    error: new ApiError({
      step,
      kind: 'http',
      status,
      retryable: status >= 500 || status === 429,
      ...(serverMessage ? { serverMessage } : {}),
    }),
  }) as Answer<never>;
const timeout = (): Answer<never> =>
  ({
    ok: false,
    error: new ApiError({ step: 'payment-details', kind: 'timeout', retryable: true, timeoutMs: 30_000 }),
  }) as Answer<never>;

type Service = (action: Action, call: number) => Answer<never>;

/** A service that registers, lists `stored`, creates accounts and completes agreements, with `kycStatus`. */
function service(
  kycStatus: string,
  over: Partial<Record<Action['kind'], Service>> = {},
  stored: object[] = [],
): Service {
  return (action, call) => {
    const custom = over[action.kind];
    if (custom) return custom(action, call);
    switch (action.kind) {
      case 'create-compliance':
        return ok({
          userId: 'u-1',
          agreementUrl: 'https://a',
          kycUrl: 'https://k',
          kycStatus,
          agreementStatus: 'not_started',
        });
      case 'read-payer':
        return ok({ found: true, kycStatus, agreementStatus: 'completed' });
      case 'read-accounts':
        return ok({ found: true, accounts: stored });
      case 'create-account':
        return ok({ id: `pd-${call}` });
      case 'complete-agreement':
        return ok({ success: true });
    }
  };
}

function drive(row: RowWork, memory: RowMemory, ctx: PlanContext, answer: Service) {
  const state = startRow(row, memory, ctx);
  const rounds: string[][] = [];
  let calls = 0;
  for (let actions = nextActions(state, ctx); actions.length > 0; actions = nextActions(state, ctx)) {
    rounds.push(actions.map((a) => a.kind));
    applyRound(
      state,
      actions,
      actions.map((action) => answer(action, ++calls)),
      ctx,
      new Set(),
    );
    if (rounds.length > 10) throw new Error('no end');
  }
  return { rounds, result: finishRow(state, ctx), state };
}

describe('plan: a first run of a new payer', () => {
  it('registers with the read of stored accounts alongside, then sends the account and the agreement together', () => {
    const { rounds, result } = drive(work(), fresh, context(), service('approved'));
    expect(rounds).toEqual([
      ['create-compliance', 'read-accounts'],
      ['complete-agreement', 'create-account'],
    ]);
    expect(result).toMatchObject({
      outcome: 'ok',
      steps: { compliance: 'ok', 'payment-details': 'ok', agreement: 'ok' },
      paymentDetailIds: ['pd-4'],
      errors: [],
    });
  });

  it('KYC not approved: the refused account waits (no retry), and the run learns the gate', () => {
    const ctx = context();
    const refuse = service('not_started', {
      'create-account': () => http('payment-details', 500, 'Internal server error'),
    });
    const { rounds, result } = drive(work(), fresh, ctx, refuse);
    expect(rounds).toHaveLength(2);
    expect(result.outcome).toBe('waiting');
    expect(result.steps).toEqual({ compliance: 'ok', 'payment-details': 'waiting', agreement: 'ok' });
    expect(result.errors).toEqual([
      { step: 'payment-details', message: 'waiting for KYC approval (kycStatus not_started)' },
    ]);
    expect(ctx.knowledge.gate).toBe('gated');

    // The next payer of the run sends no doomed create, nor a read of accounts the service cannot list yet.
    const next = drive(work({ clientUserId: 'payer-002' }), fresh, ctx, refuse);
    expect(next.rounds).toEqual([['create-compliance'], ['complete-agreement']]);
    expect(next.result.outcome).toBe('waiting');
  });

  it("a row that does not carry the payer's signature sends no agreement: it waits for the payer to sign", () => {
    const ctx = context();
    const unsigned = service('not_started', {
      'create-account': () => http('payment-details', 500, 'Internal server error'),
    });
    const { rounds, result } = drive(work({ completeAgreement: false }), fresh, ctx, unsigned);
    expect(rounds.flat()).not.toContain('complete-agreement');
    expect(result).toMatchObject({
      outcome: 'waiting',
      agreementCompleted: false,
      steps: { compliance: 'ok', 'payment-details': 'waiting', agreement: 'waiting' },
    });
    expect(result.errors).toContainEqual({
      step: 'agreement',
      message: 'waiting for the agreement: the payer signs it on their page (agreementStatus not_started)',
    });
  });

  it('a service that records an agreement only after KYC: the signature waits like a bank account, once a run', () => {
    const ctx = context();
    const gatedAgreement = service('pending', {
      'complete-agreement': () => http('agreement', 500, 'Internal server error'),
      'create-account': () => http('payment-details', 500, 'Internal server error'),
    });
    const { result } = drive(work(), fresh, ctx, gatedAgreement);
    expect(result).toMatchObject({ outcome: 'waiting', steps: { agreement: 'waiting' }, agreementCompleted: false });
    expect(result.errors).toContainEqual({
      step: 'agreement',
      message: 'signed, waiting for KYC approval before the service records it (kycStatus pending)',
    });
    expect(ctx.knowledge.agreementGated).toBe(true);

    // The next signed payer of the run whose KYC is pending sends no doomed PATCH.
    const next = drive(work({ clientUserId: 'payer-002' }), fresh, ctx, gatedAgreement);
    expect(next.rounds.flat()).not.toContain('complete-agreement');
    expect(next.result.steps.agreement).toBe('waiting');
  });

  it('an agreement recorded before KYC after a refusal: the refusal was a fault, and the run sends such PATCHes again', () => {
    const ctx = context({ knowledge: { gate: 'unknown', agreementGated: true } });
    const open = service('pending', { 'create-account': () => http('payment-details', 500, 'Internal server error') });
    const held = drive(work(), fresh, ctx, open);
    expect(held.rounds.flat()).not.toContain('complete-agreement');
    ctx.knowledge.agreementGated = undefined;
    drive(work({ clientUserId: 'payer-002' }), fresh, ctx, open);
    expect(ctx.knowledge.agreementGated).toBe(false);
  });

  it('a service that accepts an account before KYC has no gate: its 500s are faults again', () => {
    const ctx = context();
    drive(work(), fresh, ctx, service('pending'));
    expect(ctx.knowledge.gate).toBe('open');
    // A later 500 is in doubt: read, nothing stored, created again.
    let creates = 0;
    const flaky = service('pending', {
      'create-account': (_a, call) => (++creates === 1 ? http('payment-details', 500) : ok({ id: `pd-${call}` })),
    });
    const { rounds, result } = drive(work({ clientUserId: 'payer-002' }), fresh, ctx, flaky);
    expect(rounds.flat().filter((k) => k === 'create-account')).toHaveLength(2);
    expect(rounds[2]).toEqual(['read-accounts']);
    expect(result.steps['payment-details']).toBe('ok');
    expect(result.outcome).toBe('waiting'); // everything sent; KYC is still the payer's to do
  });

  it('KYC rejected: failed, for a person to contact the payer; no account sent', () => {
    const { rounds, result } = drive(
      work(),
      {
        payer: { digest: complianceDigest(complianceBody()), kycStatus: 'pending', agreementDone: true },
        accounts: [{ state: 'unknown' }],
      },
      context(),
      service('rejected'),
    );
    expect(rounds).toEqual([['read-payer']]);
    expect(result.outcome).toBe('failed');
    expect(result.errors).toContainEqual({
      step: 'kyc',
      message: 'KYC rejected: nothing in this row is wrong; the payer must be contacted',
    });
  });
});

describe('plan: re-runs', () => {
  const known = (over: object = {}): RowMemory => ({
    payer: {
      digest: complianceDigest(complianceBody()),
      kycStatus: 'approved',
      agreementStatus: 'completed',
      agreementDone: true,
      since: NOW.toISOString(),
      ...over,
    },
    accounts: [{ state: 'done', id: 'pd-9' }],
  });

  it('the payer signed in the service meanwhile: the agreement is done-before, and nothing is sent for it', () => {
    const memory: RowMemory = {
      ...known({ kycStatus: 'pending', agreementStatus: 'not_started', agreementDone: false }),
      accounts: [{ state: 'unknown' }],
    };
    const { rounds, result } = drive(work({ completeAgreement: false }), memory, context(), service('approved'));
    expect(rounds.flat()).not.toContain('complete-agreement');
    expect(result).toMatchObject({ outcome: 'ok', agreementCompleted: true, steps: { agreement: 'done-before' } });
  });

  it('a row the journal knows as done sends nothing', () => {
    const { rounds, result } = drive(work(), known(), context(), service('approved'));
    expect(rounds).toEqual([]);
    expect(result).toMatchObject({
      outcome: 'ok',
      steps: { compliance: 'done-before', 'payment-details': 'done-before', agreement: 'done-before' },
      paymentDetailIds: ['pd-9'],
    });
  });

  it('a waiting row costs one read while KYC is pending; once approved, a read of what is stored, then the create', () => {
    const waiting: RowMemory = { ...known({ kycStatus: 'pending' }), accounts: [{ state: 'in-doubt' }] };
    const ctx = context({ knowledge: { gate: 'gated' } });
    expect(drive(work(), waiting, ctx, service('pending')).rounds).toEqual([['read-payer']]);
    expect(drive(work(), waiting, ctx, service('approved')).rounds).toEqual([
      ['read-payer'],
      ['read-accounts'],
      ['create-account'],
    ]);
    // Never sent, for a payer whose every account the journal knows: the journal is one writer's memory (another
    // machine, the service's dashboard may have added one), so what is stored is read before the create all the same.
    const neverSent: RowMemory = {
      ...waiting,
      payer: { ...waiting.payer, accountsKnown: true },
      accounts: [{ state: 'unknown' }],
    };
    expect(drive(work(), neverSent, ctx, service('approved')).rounds).toEqual([
      ['read-payer'],
      ['read-accounts'],
      ['create-account'],
    ]);
    // The same after a crash, which may have lost a line of a create sent: read first.
    const afterCrash = context({ knowledge: { gate: 'gated' }, journalWhole: false });
    expect(drive(work(), neverSent, afterCrash, service('approved')).rounds).toEqual([
      ['read-payer'],
      ['read-accounts'],
      ['create-account'],
    ]);
    // Registered, but not known to be the payer's only accounts (registered before this journal knew it): read first.
    const registeredOnly: RowMemory = { ...waiting, accounts: [{ state: 'unknown' }] };
    expect(drive(work(), registeredOnly, ctx, service('approved')).rounds).toEqual([
      ['read-payer'],
      ['read-accounts'],
      ['create-account'],
    ]);
    // A payer the journal never registered (a pending file fed back elsewhere): what is stored is read first.
    const elsewhere: RowMemory = { accounts: [{ state: 'unknown' }] };
    const carried = work({ carried: { steps: ['compliance', 'agreement'] } });
    expect(drive(carried, elsewhere, ctx, service('approved')).rounds).toEqual([
      ['read-payer'],
      ['read-accounts'],
      ['create-account'],
    ]);
    expect(drive(carried, elsewhere, ctx, service('pending')).rounds).toEqual([['read-payer']]);
  });

  it("once the gate is known, an approved payer whose agreement is neither completed nor the row's to complete waits", () => {
    const memory: RowMemory = {
      ...known({ kycStatus: 'pending', agreementStatus: 'not_started', agreementDone: false }),
      accounts: [{ state: 'unknown' }],
    };
    const notSigned = service('approved', {
      'read-payer': () => ok({ found: true, kycStatus: 'approved', agreementStatus: 'not_started' }),
    });
    const { rounds, result } = drive(
      work({ completeAgreement: false }),
      memory,
      context({ knowledge: { gate: 'gated' } }),
      notSigned,
    );
    expect(rounds).toEqual([['read-payer']]);
    expect(result).toMatchObject({ outcome: 'waiting', steps: { 'payment-details': 'waiting', agreement: 'waiting' } });
    expect(result.errors).toEqual([
      { step: 'payment-details', message: 'waiting for the agreement to be completed (agreementStatus not_started)' },
      {
        step: 'agreement',
        message: 'waiting for the agreement: the payer signs it on their page (agreementStatus not_started)',
      },
    ]);
  });

  it('an agreement `signed` (a word the documents do not use) is neither completed nor failed: the row waits, the word noted', () => {
    const memory: RowMemory = {
      ...known({ kycStatus: 'pending', agreementStatus: 'not_started', agreementDone: false }),
      accounts: [{ state: 'unknown' }],
    };
    const signed = service('approved', {
      'read-payer': () => ok({ found: true, kycStatus: 'approved', agreementStatus: 'signed' }),
    });
    const { result } = drive(
      work({ completeAgreement: false }),
      memory,
      context({ knowledge: { gate: 'gated' } }),
      signed,
    );
    expect(result).toMatchObject({ outcome: 'waiting', agreementCompleted: false, agreementStatus: 'signed' });
    expect(result.errors).toEqual([
      {
        step: 'payment-details',
        message:
          "waiting for the agreement to be completed (agreementStatus signed, not a word this tool knows: check it in the service's dashboard)",
      },
      {
        step: 'agreement',
        message:
          "waiting for the agreement: the payer signs it on their page (agreementStatus signed, not a word this tool knows: check it in the service's dashboard)",
      },
    ]);
  });

  it('a 503 or a 400 about the account is not the gate: no row waits on it, and the run learns nothing', () => {
    const ctx = context();
    const invalid = drive(
      work(),
      fresh,
      ctx,
      service('pending', { 'create-account': () => http('payment-details', 400, 'Invalid bank account details') }),
    );
    expect(invalid.result.outcome).toBe('failed');
    expect(invalid.result.errors[0]).toEqual({
      step: 'payment-details',
      message: 'HTTP 400 Invalid bank account details',
    });
    let creates = 0;
    const busy = drive(
      work(),
      fresh,
      ctx,
      service('pending', {
        'create-account': (_a, call) => (++creates === 1 ? http('payment-details', 503) : ok({ id: `pd-${call}` })),
      }),
    );
    expect(busy.result.steps['payment-details']).toBe('ok');
    expect(ctx.knowledge.gate).toBe('open');
  });

  it('a lost journal: a stored account that matches is adopted, on the last 4 digits when masked, currency in any case', () => {
    const stored = [
      { id: 'pd-old', currency: 'usd', accountNumber: '6789', routingNumber: '021000021', status: 'approved' },
    ];
    const { rounds, result } = drive(work(), fresh, context(), service('approved', {}, stored));
    expect(rounds).toEqual([['create-compliance', 'read-accounts'], ['complete-agreement']]);
    expect(result).toMatchObject({ outcome: 'ok', paymentDetailIds: ['pd-old'] });
    expect(result.steps).toMatchObject({ compliance: 'done-before', 'payment-details': 'done-before' });
  });

  it('never adopts an account the provider marked failed: a new one is created', () => {
    const stored = [{ id: 'pd-bad', currency: 'USD', accountNumber: '000123456789', status: 'failed' }];
    const { result } = drive(work(), fresh, context(), service('approved', {}, stored));
    expect(result.paymentDetailIds).toEqual(['pd-4']);
  });

  it("an unclear create is read before any new attempt, and a stored match is taken as this run's", () => {
    const stored: object[] = [];
    const lost = service(
      'approved',
      {
        'create-account': () => {
          stored.push({ id: 'pd-lost', currency: 'USD', accountNumber: '000123456789' });
          return timeout();
        },
      },
      stored,
    );
    const { rounds, result } = drive(work(), fresh, context(), lost);
    expect(rounds).toEqual([
      ['create-compliance', 'read-accounts'],
      ['complete-agreement', 'create-account'],
      ['read-accounts'],
    ]);
    expect(result).toMatchObject({ outcome: 'ok', paymentDetailIds: ['pd-lost'], steps: { 'payment-details': 'ok' } });
  });

  it('changed payer data is not sent on either path: the row goes on, its note names the columns', () => {
    const memory: RowMemory = {
      ...known({ fieldDigests: fieldDigests(complianceBody()) }),
      accounts: [{ state: 'unknown' }],
    };
    const changed = work({ compliance: { ...complianceBody(), email: 'new@example.com' } });
    for (const compliancePath of ['/v2/payer', '/v1/payer'] as const) {
      const ran = drive(changed, memory, context({ compliancePath }), service('approved'));
      expect(ran.rounds.flat()).not.toContain('create-compliance');
      expect(ran.result.outcome).toBe('ok');
      expect(ran.result.steps).toMatchObject({ compliance: 'done-before', 'payment-details': 'ok' });
      expect(formatError(ran.result.errors[0]!)).toMatch(
        /^compliance: email changed since the payer was registered and was not sent .*change it in the service's dashboard$/,
      );
    }
    // Known only from a failed file's digest (no journal here): the change is noticed, the columns cannot be named.
    const carried = drive(
      work({ ...changed, carried: { steps: ['compliance'], complianceDigest: complianceDigest(complianceBody()) } }),
      fresh,
      context(),
      service('approved'),
    );
    expect(formatError(carried.result.errors[0]!)).toMatch(/^compliance: payer cells changed since/);
    expect(carried.result.outcome).toBe('ok');
  });

  it('a row whose SSN differs from what is registered under its id is someone else: nothing of it is sent', () => {
    const memory: RowMemory = {
      ...known({ fieldDigests: fieldDigests(complianceBody()) }),
      accounts: [{ state: 'unknown' }],
    };
    const other = work({
      compliance: { ...complianceBody(), ssn: '999-99-9999' },
      details: [paymentDetailBody('000999999999')],
    });
    const { rounds, result } = drive(other, memory, context(), service('approved'));
    expect(rounds).toEqual([]);
    expect(result.outcome).toBe('failed');
    expect(result.steps).toMatchObject({ compliance: 'failed', 'payment-details': 'failed' });
    expect(formatError(result.errors[0]!)).toMatch(
      /^compliance: ssn differ from what is registered for this clientUserId; nothing was sent/,
    );
  });

  it('a row waiting longer than --max-wait fails, for a person to chase the payer', () => {
    const old: RowMemory = {
      ...known({ kycStatus: 'pending', since: '2026-10-01T00:00:00Z' }),
      accounts: [{ state: 'unknown' }],
    };
    const { result } = drive(work(), old, context({ knowledge: { gate: 'gated' } }), service('pending'));
    expect(result.outcome).toBe('failed');
    expect(result.errors.at(-1)).toEqual({
      message: 'still waiting after 53 days (--max-wait 30): the payer must be contacted',
    });
  });

  it('a payer the journal registered but the service no longer knows (its data was reset) is registered again', () => {
    const memory: RowMemory = { ...known({ kycStatus: 'pending' }), accounts: [{ state: 'unknown' }] };
    const { rounds, result } = drive(
      work(),
      memory,
      context(),
      service('approved', { 'read-payer': () => ok({ found: false }) }),
    );
    expect(rounds).toEqual([
      ['read-payer'],
      ['create-compliance', 'read-accounts'],
      ['complete-agreement', 'create-account'],
    ]);
    expect(result).toMatchObject({
      outcome: 'ok',
      steps: { compliance: 'ok', 'payment-details': 'ok', agreement: 'ok' },
    });
  });

  it('a bank row for a payer the service does not know fails as "payer not registered"', () => {
    const bank = work({ kind: 'bank', compliance: undefined, completeAgreement: false });
    const { rounds, result } = drive(
      bank,
      fresh,
      context(),
      service('approved', {
        'read-payer': () => ok({ found: false }),
        'read-accounts': () => ok({ found: false, accounts: [] }),
      }),
    );
    expect(rounds).toEqual([['read-payer', 'read-accounts']]);
    expect(result.outcome).toBe('failed');
    expect(result.errors).toEqual([
      { step: 'payment-details', message: 'payer not registered (the service does not know this clientUserId)' },
    ]);
  });

  it("refused while KYC is approved and this run's agreement was out with it: tried once more after the agreement", () => {
    let creates = 0;
    const compliantOnly = service('approved', {
      'create-account': (_a, call) => (++creates === 1 ? http('payment-details', 500) : ok({ id: `pd-${call}` })),
    });
    const { rounds, result } = drive(work(), fresh, context({ knowledge: { gate: 'gated' } }), compliantOnly);
    expect(rounds).toEqual([
      // The gate known and the KYC not yet: nothing can be stored, nothing is read.
      ['create-compliance'],
      ['complete-agreement', 'read-accounts'],
      ['create-account'],
      ['read-accounts'],
      ['create-account'],
    ]);
    expect(result.outcome).toBe('ok');
  });
});

describe('plan: the service words approval its own way', () => {
  const waiting: RowMemory = {
    payer: {
      digest: complianceDigest(complianceBody()),
      kycStatus: 'pending',
      agreementStatus: 'completed',
      agreementDone: true,
      since: NOW.toISOString(),
    },
    accounts: [{ state: 'unknown' }],
  };
  const gated = () => context({ knowledge: { gate: 'gated' } });

  it.each([
    ['approved', undefined],
    ['COMPLETED', undefined],
    ['verified', true],
  ])('KYC %s (isCompliant %s) is done: the account is created', (kycStatus, isCompliant) => {
    const read = service('approved', {
      'read-payer': () => ok({ found: true, kycStatus, agreementStatus: 'completed', isCompliant }),
    });
    const { rounds, result } = drive(work(), waiting, gated(), read);
    expect(rounds).toEqual([['read-payer'], ['read-accounts'], ['create-account']]);
    expect(result).toMatchObject({ outcome: 'ok', kycStatus });
  });

  it.each([
    [
      'in_review',
      'waiting',
      "waiting for KYC approval (kycStatus in_review, not a word this tool knows: check it in the service's dashboard)",
    ],
    [
      'completed_pending',
      'waiting',
      "waiting for KYC approval (kycStatus completed_pending, not a word this tool knows: check it in the service's dashboard)",
    ],
  ])(
    'any other word (%s) is "not yet", shown as the service wrote it with a note to check it',
    (kycStatus, outcome, message) => {
      const read = service('approved', {
        'read-payer': () => ok({ found: true, kycStatus, agreementStatus: 'completed', isCompliant: false }),
      });
      const { rounds, result } = drive(work(), waiting, gated(), read);
      expect(rounds).toEqual([['read-payer']]);
      expect(result.outcome).toBe(outcome);
      expect(result.errors).toEqual([{ step: 'payment-details', message }]);
    },
  );

  it('rejected and failed stay final', () => {
    for (const kycStatus of ['rejected', 'Failed']) {
      const read = service('approved', {
        'read-payer': () => ok({ found: true, kycStatus, agreementStatus: 'completed', isCompliant: false }),
      });
      const { result } = drive(work(), waiting, gated(), read);
      expect(result.outcome).toBe('failed');
      expect(result.errors.at(-1)).toEqual({
        step: 'kyc',
        message: `KYC ${kycStatus.toLowerCase()}: nothing in this row is wrong; the payer must be contacted`,
      });
    }
  });
});

describe('plan: bank accounts of one payer', () => {
  it('are created one at a time, the next only once the last is settled', () => {
    const two = work({ details: [paymentDetailBody('000111'), paymentDetailBody('000222')] });
    const memory: RowMemory = { accounts: [{ state: 'unknown' }, { state: 'unknown' }] };
    const { rounds, result } = drive(two, memory, context(), service('approved'));
    expect(rounds).toEqual([
      ['create-compliance', 'read-accounts'],
      ['complete-agreement', 'create-account'],
      ['create-account'],
    ]);
    expect(result.paymentDetailIds).toEqual(['pd-4', 'pd-5']);
  });

  it('an unclear create is settled by the one id new since it went out, whatever the read shows of it', () => {
    const stored = [{ id: 'old', bankName: 'First Springfield Bank', status: 'approved' }];
    let reads = 0;
    const lost = service('approved', {
      'read-accounts': () =>
        ok({
          found: true,
          accounts: ++reads === 1 ? stored : [...stored, { id: 'mine', bankName: 'First Springfield Bank' }],
        }),
      'create-account': () => timeout(),
    });
    // The stored account at the same bank was checked by a person: the row's account is created.
    const { rounds, result } = drive(work(), fresh, context({ createUnmatched: true }), lost);
    expect(rounds).toEqual([
      ['create-compliance', 'read-accounts'],
      ['complete-agreement', 'create-account'],
      ['read-accounts'],
    ]);
    expect(result).toMatchObject({ outcome: 'ok', paymentDetailIds: ['mine'] });
  });
});
