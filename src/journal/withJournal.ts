import type { AgreementRequest, ComplianceRequest, PaymentDetailRequest } from '../schema/index.js';
import type { PayerCalls } from '../execute/processPayer.js';
import type { CallResult } from '../execute/ApiClient.js';
import { idempotencyKey } from '../execute/idempotencyKey.js';
import type { AgreementAnswer, ComplianceAnswer, PaymentDetailAnswer } from '../execute/readAnswer.js';
import type { Journal } from './Journal.js';

/**
 * The API calls seen through the journal: a call that already succeeded with the same body (same key) is not
 * sent again and answers `replayed` with what it answered then; any other call is recorded as sent before it
 * goes out and as done after a success. An in-doubt call (sent, no answer: the run died) is simply sent again,
 * with the same Idempotency-Key, since the key is derived from the same content.
 */
export function withJournal(calls: PayerCalls, journal: Journal): PayerCalls {
  // Two identical calls at once (the same bank account twice in a file) share one request: against an API
  // that ignores Idempotency-Key, sending both would store the account twice.
  const inFlight = new Map<string, Promise<CallResult<object>>>();

  function through<T extends object>(key: string, send: () => Promise<CallResult<T>>, keep: (body: T) => Record<string, string>, alreadyDone?: (r: CallResult<T>) => boolean): Promise<CallResult<T>> {
    const prior = journal.get(key);
    if (prior?.state === 'done') return Promise.resolve({ ok: true, status: prior.status, body: prior.answer as T, replayed: true });
    const pending = inFlight.get(key) as Promise<CallResult<T>> | undefined;
    if (pending) return pending.then((r) => (r.ok ? { ...r, replayed: true } : r));
    const place = journal.sent(key);
    const call = send().then((result) => {
      if (result.ok) journal.done(key, result.status, keep(result.body), place);
      else if (alreadyDone?.(result)) journal.done(key, result.error.status ?? 0, {}, place);
      return result;
    }).finally(() => inFlight.delete(key));
    inFlight.set(key, call as Promise<CallResult<object>>);
    return call;
  }

  return {
    createCompliance: (body: ComplianceRequest, meta) =>
      through<ComplianceAnswer>(meta.idempotencyKey, () => calls.createCompliance(body, meta), strings,
        // 409: the payer exists; remembering it saves the next run a call that can only say the same.
        (r) => !r.ok && r.error.kind === 'http' && r.error.status === 409),
    createPaymentDetail: (clientUserId: string, body: PaymentDetailRequest, meta) =>
      through<PaymentDetailAnswer>(meta.idempotencyKey, () => calls.createPaymentDetail(clientUserId, body, meta), strings),
    completeAgreement: (clientUserId: string, body: AgreementRequest) =>
      through<AgreementAnswer>(idempotencyKey('agreement', clientUserId, body), () => calls.completeAgreement(clientUserId, body), () => ({})),
  };
}

/** The answer's string fields: ids, links and statuses, never a request value. */
function strings(body: object): Record<string, string> {
  return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
