import type { ApiError } from '../core/apiError.js';
import type { StoredPaymentDetail } from '../core/schemas.js';
import { decideStored } from './storedAccounts.js';
import {
  type Answer,
  agreementDone,
  because,
  forgetAccounts,
  type PlanContext,
  type RowState,
  stopsRun,
} from './rowState.js';
import { kycDone } from './verdict.js';

// What a bank account's answers mean for it. An account not known as done is adopted when a read shows it stored,
// and created when the read shows it is not, or without a read where the journal knows every account of the payer;
// a refusal by the KYC gate makes it wait for the payer; an answer that leaves it unclear whether the account was
// stored sends it back to a read before any new attempt. The service documents no idempotency, so these rules are
// what keeps an account from being stored twice.

/**
 * Settles every account waiting on a read: adopt what is stored, create, or (where what is stored cannot be told
 * apart from it) leave it to a person. `taken`: ids adopted by this run's rows, `created`: ids its creates made.
 */
export function applyAccountsRead(
  s: RowState,
  answer: Answer<{ found: boolean; accounts: readonly StoredPaymentDetail[]; unreadable?: boolean }>,
  ctx: PlanContext,
  taken: Set<string>,
  created: ReadonlySet<string>,
): void {
  s.checked = true;
  if (answer.ok && answer.body.unreadable) {
    forgetAccounts(s);
    // A list that could not be read whole says nothing about what is absent: never a reason to create.
    for (const account of s.accounts) {
      if (account.state !== 'check') continue;
      account.state = 'failed';
      account.error = 'not sent: the list of stored accounts could not be read (an answer of an unexpected shape)';
    }
    return;
  }
  if (!answer.ok) {
    const stop = stopsRun(answer.error);
    if (stop) s.stopped = true;
    for (const account of s.accounts) {
      if (account.state !== 'check') continue;
      account.state = stop ? 'skipped' : 'failed';
      account.error = stop
        ? `not sent, ${because(answer.error)}`
        : `not sent: could not check what is stored (${answer.error.detail})`;
    }
    return;
  }
  const stored = answer.body.accounts;
  // Accounts stored before this row sent any: the service knew the payer before this run.
  if (stored.length > 0 && s.accounts.every((a) => a.attempts === 0)) s.compliance.knownBefore = true;
  s.listed = stored.map((a) => a.id);
  s.accounts.forEach((account, i) => {
    if (account.state !== 'check' || account.sameAs !== undefined) return;
    // Ids that are another account's: adopted or made by this run, or known to the journal as another row's.
    const others = (id: string) =>
      taken.has(id) ||
      created.has(id) ||
      s.accounts.some((a) => a.id === id) ||
      (s.claimed.has(id) && s.claimed.get(id) !== account.key);
    const decision = decideStored(account.identity, s.work.details[i]!, {
      stored,
      others,
      taken,
      before: account.before,
      othersInDoubt: s.othersInDoubt,
      createUnmatched: ctx.createUnmatched === true,
    });
    if (decision.kind !== 'unsure') account.unsettled = false;
    if (decision.kind === 'adopt') {
      taken.add(decision.id);
      account.state = 'done';
      account.id = decision.id;
      // Created by this run's own unclear attempt, or stored before it.
      account.how = account.attempts > 0 ? 'ok' : 'done-before';
    } else if (decision.kind === 'create') {
      account.state = 'create';
      account.storedFailed ||= decision.storedFailed === true;
    } else {
      account.state = 'failed';
      account.error = decision.message;
    }
  });
  // Whether the journal knows every account listed: ids adopted or made by the payer's rows, and none besides.
  const known = (id: string) => taken.has(id) || created.has(id) || s.claimed.has(id);
  s.accountsKnown = stored.every((a) => known(a.id));
  s.accountsLearned = true;
}

export function applyAccountCreate(
  s: RowState,
  index: number,
  answer: Answer<{ id?: string }>,
  ctx: PlanContext,
  agreementInRound: boolean,
  created: Set<string>,
): void {
  const account = s.accounts[index]!;
  account.attempts += 1;
  account.unsettled = !answer.ok && !stopsRun(answer.error) && !definitelyNotStored(answer.error);
  if (answer.ok) {
    account.state = 'done';
    account.how = 'ok';
    if (answer.body.id !== undefined) {
      account.id = answer.body.id;
      created.add(answer.body.id);
    } else forgetAccounts(s);
    if (!kycDone(s.status) && s.status !== undefined) ctx.knowledge.gate = 'open';
    return;
  }
  const error = answer.error;
  if (stopsRun(error)) {
    s.stopped = true;
    account.state = 'skipped';
    account.error = error.detail;
    return;
  }
  if (isRefusal(error) && ctx.knowledge.gate !== 'open') {
    // KYC approved: the refusal may be for the agreement this run completed in the same round. Once more after it.
    // Not counted as a refusal: it may as well be a fault, which the next attempt tells.
    if (kycDone(s.status) && agreementInRound && !account.afterAgreement) {
      account.afterAgreement = true;
      account.state = 'check';
      return;
    }
    if (!kycDone(s.status) || !agreementDone(s)) {
      ctx.knowledge.gate = 'gated';
      account.state = 'waiting';
      s.refused.push({ status: error.status!, before: kycDone(s.status) ? 'agreement' : 'kyc' });
      return;
    }
  }
  if (definitelyNotStored(error) || account.attempts > ctx.retries) {
    account.state = 'failed';
    account.error = error.detail;
    return;
  }
  // Sent, outcome unknown: the account may be stored. A read decides before any new attempt.
  account.state = 'check';
  account.error = error.detail;
}

/**
 * A refusal that can be the KYC gate: the real service answers a bank account for a payer not yet approved with a
 * 500; a 4xx counts when its words say so. A 502, 503 or 504 is the network's, and a 400 about the account is a
 * field error: neither makes a row wait.
 */
export function isRefusal(error: ApiError): boolean {
  if (error.kind !== 'http' || error.status === undefined) return false;
  if (error.status === 500) return true;
  return (
    error.status >= 400 &&
    error.status < 500 &&
    /\b(kyc|complian\w*|verif\w*|not approved)\b/i.test(error.serverMessage ?? '')
  );
}

/**
 * An answer that says nothing was stored: a field error, a missing payer, a rate limit the client gave up on; or no
 * answer because nothing was sent (a clientUserId no path can hold).
 */
export function definitelyNotStored(error: ApiError): boolean {
  if (error.kind === 'bad-route') return true;
  return (
    error.kind === 'http' &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408
  );
}
