import type { RowJournal } from '../journal/RowJournal.js';
import type { FailureCodes } from '../journal/RunAudit.js';
import { finishRow } from '../plan/finishRow.js';
import { definitelyNotStored } from '../plan/planAccounts.js';
import { applyRound, nextActions, type Action } from '../plan/planRow.js';
import { identityText, idempotencyKey } from '../plan/identity.js';
import {
  type Answer,
  type RowMemory,
  startRow,
  type PlanContext,
  type RowState,
  type RowWork,
} from '../plan/rowState.js';
import type { PayerResult } from '../core/types.js';
import type { ApiClient } from './ApiClient.js';
import type { CallResult } from '../core/answers.js';
import type { PersonalData } from './scrubServerText.js';
import { ApiError } from '../core/apiError.js';

export interface RowDeps {
  client: Pick<
    ApiClient,
    | 'createCompliance'
    | 'createPaymentDetail'
    | 'completeAgreement'
    | 'readPayer'
    | 'readPaymentDetails'
    | 'backoff'
    | 'refused'
  >;
  journal: RowJournal | undefined;
  ctx: PlanContext;
  /** Stored accounts adopted by a row of this run: one stored account answers for one row at most. */
  taken: Set<string>;
  /** Ids of the accounts this run's creates made. */
  created: Set<string>;
  /** Rows of one payer read and create its bank accounts one after the other. */
  turns: PayerTurns;
  /** Creates left in doubt by this run's rows, by payer: the ids the payer had when each went out. */
  inDoubt: Map<string, Array<readonly string[]>>;
  /**
   * Which row has each payer's bank account, when a run has bank rows apart from the payers (a payer's accounts
   * then come from several rows): the same account on a second row is that row's mistake, not a second account.
   */
  claims?: Map<string, string>;
}

/** A plan never needs more round trips than this (a read and a create per retry); past it something is wrong, and the row says so. */
const maxRounds = (retries: number) => 3 * (retries + 2) + 6;

/**
 * Carries out one row's plan: asks the plan for the calls to make, makes them together, feeds the answers back,
 * until the plan has nothing left to send. The journal notes each bank account create before it goes out and
 * after its answer, and the payer's record once the row is done. Never throws for a failed call.
 */
export async function executeRow(
  work: RowWork,
  deps: RowDeps,
  where: string,
  fresh?: { kycStatus?: string; agreementStatus?: string },
): Promise<PayerResult> {
  const { ctx } = deps;
  // The rows of one payer settle its bank accounts one after the other: a row reads the journal and decides (whether
  // to read what is stored, which ids the payer had before a create) only once the rows before it are done, so it
  // knows what they stored or left in doubt. Nearly every payer has one row, which takes its turn at once.
  const hasAccounts = work.details.length > 0 && ctx.steps.includes('payment-details');
  const turn = hasAccounts ? deps.turns.take(work.clientUserId) : undefined;
  const endTurn = typeof turn === 'function' || turn === undefined ? turn : await turn;
  try {
    const memory = (await recall(deps.journal, work)) ?? {
      accounts: work.details.map(() => ({ state: 'unknown' as const })),
    };
    const state = startRow(work, fresh === undefined ? memory : { ...memory, fresh }, ctx);
    const others = deps.inDoubt.get(work.clientUserId);
    if (others !== undefined) state.othersInDoubt = [...state.othersInDoubt, ...others];
    if (deps.claims !== undefined) claimAccounts(state, deps.claims, where);
    // Each step's last failure, by its code: what the row's line in the audit trail says of a step that failed.
    const codes: FailureCodes = {};
    for (let round = 0; ; round++) {
      const actions = nextActions(state, ctx);
      if (actions.length === 0) break;
      if (round === maxRounds(ctx.retries)) {
        state.failure = { message: `internal error: the row did not settle after ${round} round trips` };
        break;
      }
      const answers = await Promise.all(actions.map((action) => perform(action, state, deps)));
      for (const answer of answers) if (!answer.ok) codes[answer.error.step] = failureCode(answer.error);
      const adopted = applyRound(state, actions, answers, ctx, deps.taken, deps.created);
      // Refusals the plan expected (a bank account before KYC) are counted apart from faults, by the one client.
      for (const refusal of state.refused.splice(0)) deps.client.refused(refusal);
      // An account adopted from what is stored is known from now on, as if this journal had created it.
      for (const account of adopted) deps.journal?.accountAdopted(state, account, account.id!);
    }
    const result = finishRow(state, ctx);
    // The row's result stands whatever the store does now: a failure to record it has stopped the run already.
    await deps.journal?.remember(state, ctx.now, { where, result, codes }).catch((error: unknown) => {
      if (!deps.journal?.failed()) throw error;
    });
    for (const account of state.accounts) {
      if (!account.unsettled || account.before === undefined) continue;
      const list = deps.inDoubt.get(work.clientUserId) ?? [];
      list.push(account.before);
      deps.inDoubt.set(work.clientUserId, list);
    }
    return result;
  } finally {
    endTurn?.();
  }
}

/**
 * One turn at a time per payer, for the rows with bank accounts: after an unclear answer the id new since the create
 * went out must be the one it made, not another row's. Rows of different payers never wait for each
 * other, and a payer's only row (nearly every row) takes its turn at once, without a promise.
 */
export class PayerTurns {
  /** By payer in its turn: the rows waiting for theirs. */
  private readonly waiting = new Map<string, Array<() => void>>();

  /** The payer's turn: the function that ends it, now or once the rows before this one have ended theirs. */
  take(clientUserId: string): (() => void) | Promise<() => void> {
    const end = () => this.pass(clientUserId);
    const queue = this.waiting.get(clientUserId);
    if (queue === undefined) {
      this.waiting.set(clientUserId, []);
      return end;
    }
    return new Promise((resolve) => queue.push(() => resolve(end)));
  }

  private pass(clientUserId: string): void {
    const next = this.waiting.get(clientUserId)?.shift();
    if (next === undefined) this.waiting.delete(clientUserId);
    else next();
  }
}

function claimAccounts(state: RowState, claims: Map<string, string>, where: string): void {
  for (const account of state.accounts) {
    if (account.sameAs !== undefined) continue;
    const claim = `${state.work.clientUserId}\u0000${identityText(account.identity)}`;
    const other = claims.get(claim);
    if (other === undefined) claims.set(claim, where);
    else if (other !== where) {
      account.state = 'failed';
      account.error = `not sent: the same bank account as ${other} (each row is its own account)`;
    }
  }
}

/** One action's call. Only a bank account create has more to do than the call (the journal, a backoff): the rest return the call's own promise. */
function perform(action: Action, state: RowState, deps: RowDeps): Promise<Answer<never>> {
  const { client } = deps;
  const work = state.work;
  const id = work.clientUserId;
  const personal = personalOf(work);
  switch (action.kind) {
    case 'create-compliance': {
      const body = work.compliance!;
      const key = idempotencyKey('compliance', id, body, state.complianceText);
      return answerOf(client.createCompliance(body, { clientUserId: id, idempotencyKey: key, personal }));
    }
    case 'read-payer':
      return answerOf(client.readPayer(id, personal));
    case 'read-accounts':
      return answerOf(client.readPaymentDetails(id, personal));
    case 'complete-agreement':
      return answerOf(
        client.completeAgreement(id, { agreementCompleted: true }, { personal, refusable: action.beforeKyc }),
      );
    case 'create-account':
      return createAccount(action.index, state, deps);
  }
}

async function createAccount(index: number, state: RowState, deps: RowDeps): Promise<Answer<never>> {
  const { client } = deps;
  const id = state.work.clientUserId;
  const detail = state.work.details[index]!;
  const account = state.accounts[index]!;
  // A new attempt after an unclear one (and the read that found nothing) waits its backoff like any retry.
  if (account.attempts > 0) await client.backoff(account.attempts - 1);
  let call: { key: string } | undefined;
  try {
    call = await deps.journal?.accountSent(state, account);
  } catch {
    // Not recorded, so not sent: the journal's failure has stopped the run, and the next run reads what is stored.
    const error = new ApiError({
      step: 'payment-details',
      kind: 'stopped',
      retryable: false,
      stoppedBecause: 'the journal could not record it first',
    });
    return { ok: false, error } as unknown as Answer<never>;
  }
  const result = await client.createPaymentDetail(id, detail, {
    idempotencyKey: idempotencyKey('payment-details', id, detail),
    personal: personalOf(state.work),
  });
  if (call !== undefined) {
    if (result.ok) deps.journal!.accountDone(state, account, call, result.body.id);
    else if (result.error.kind === 'stopped' || definitelyNotStored(result.error))
      await deps.journal!.accountNotStored(call);
  }
  return result as unknown as Answer<never>;
}

/**
 * What the journal knows of the row; nothing when the store cannot be read, which has stopped the run already: no
 * call goes out after that, and the row is left for the next run.
 */
async function recall(journal: RowJournal | undefined, work: RowWork): Promise<RowMemory | undefined> {
  try {
    return await journal?.recall(work);
  } catch (error) {
    // Only a store that failed is taken as knowing nothing; anything else is a fault to see, not to run past.
    if (!journal?.failed()) throw error;
    return undefined;
  }
}

/** A failure as the audit trail names it: by its status, its network code, or its kind; never its words. */
function failureCode(error: ApiError): string {
  if (error.kind === 'http') return `HTTP ${error.status ?? 0}`;
  return error.networkCode ?? error.kind;
}

/** Everything the row holds of the payer: any call's answer may quote any of it. */
const personalOf = (work: RowWork): PersonalData => [work.compliance, work.details];

/**
 * A call's result as the plan reads it: the same object (an answer is `ok` with its body, or `ok: false` with its
 * error; the status and replay mark beside them are the client's), so no copy per request.
 */
function answerOf<T>(result: Promise<CallResult<T>>): Promise<Answer<never>> {
  return result as unknown as Promise<Answer<never>>;
}
