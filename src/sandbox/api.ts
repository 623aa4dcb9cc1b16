import { createHash } from 'node:crypto';
import type { Answer, PayerStore } from './payerStore.js';
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { agreementRequest, complianceRequest, paymentDetailRequest } from '../core/schemas.js';
import { nestError, validationMessages } from './http.js';
import type { RouteName } from './routes.js';
import type { StatsRecorder } from './stats.js';

// Idempotency-Key handling, as idempotent payment APIs do it (the real Payer API documents none):
// - the key is scoped to method + path, so one key on two routes means two operations;
// - only answers of operations that changed something (2xx) are remembered; a 404 or 409 did nothing,
//   so running it again is harmless and lets a retry succeed once the cause is fixed;
// - the answer is remembered in the same step as the change, before it is sent: when the answer is
//   lost (commit-then-500, slow answer, reset), a retry with the key gets the success, not a duplicate;
// - the same key with a different body is a client bug and gets 422 rather than a silent replay.

interface Remembered extends Answer {
  fingerprint: string;
}

export type Lookup = { kind: 'miss' } | { kind: 'replay'; answer: Answer } | { kind: 'mismatch' };

export class IdempotencyStore {
  private answers = new Map<string, Remembered>();

  lookup(scope: string, key: string, bodyText: string): Lookup {
    const found = this.answers.get(`${scope}\n${key}`);
    if (found === undefined) return { kind: 'miss' };
    if (found.fingerprint !== fingerprint(bodyText)) return { kind: 'mismatch' };
    return { kind: 'replay', answer: { status: found.status, body: found.body } };
  }

  remember(scope: string, key: string, bodyText: string, answer: Answer): void {
    if (answer.status < 200 || answer.status > 299) return;
    this.answers.set(`${scope}\n${key}`, { ...answer, fingerprint: fingerprint(bodyText) });
  }

  clear(): void {
    this.answers.clear();
  }
}

function fingerprint(bodyText: string): string {
  return createHash('sha256').update(bodyText).digest('base64url');
}

// What an API request does once it got past the key, the script, the rate limit and the random faults: the
// idempotency replay (when on), the body checks and the store's operation. Nothing here awaits, so the lookup,
// the change and the remembered answer are one step that no other request can interleave with.

export interface ApiRequest {
  req: IncomingMessage;
  method: string;
  pathname: string;
  query: URLSearchParams;
  route: RouteName;
  clientUserId: string;
  text: string;
}

export interface ApiContext {
  store: PayerStore;
  /** Undefined when the sandbox ignores Idempotency-Key, as the real service does. */
  idempotency: IdempotencyStore | undefined;
  stats: StatsRecorder;
  /** How a 400 for a body that fails validation lists its problems. */
  errorShape: 'messages' | 'problems';
}

export type ApiAnswer = Answer & { headers?: Record<string, string> };

export function operate(context: ApiContext, request: ApiRequest): ApiAnswer {
  const { store } = context;
  const { route, clientUserId } = request;
  // Reads change nothing: there is nothing to replay and no body to check.
  if (route === 'read-payer') return store.readPayer(clientUserId);
  if (route === 'read-payment-details')
    return store.readPaymentDetails(clientUserId, request.query.get('paymentDetailsId'));

  const keyHeader = request.req.headers['idempotency-key'];
  const key =
    context.idempotency !== undefined && typeof keyHeader === 'string' && keyHeader !== '' ? keyHeader : undefined;
  const scope = `${request.method} ${request.pathname}`;
  if (key !== undefined) {
    const found = context.idempotency!.lookup(scope, key, request.text);
    if (found.kind === 'replay') {
      context.stats.count('idempotentReplays');
      return { ...found.answer, headers: { 'idempotent-replayed': 'true' } };
    }
    if (found.kind === 'mismatch') {
      context.stats.count('idempotencyMismatches');
      return { status: 422, body: nestError(422, 'Idempotency-Key was already used with a different request body') };
    }
  }
  const answer = write(store, request, context.errorShape);
  if (key !== undefined) context.idempotency!.remember(scope, key, request.text, answer);
  return answer;
}

function write(
  store: PayerStore,
  { req, route, clientUserId, text }: ApiRequest,
  shape: ApiContext['errorShape'],
): Answer {
  const parsed = parseJson(req, text);
  if ('status' in parsed) return parsed;
  const value = parsed.value;
  if (route === 'compliance' || route === 'compliance-v1') {
    const checked = complianceRequest.safeParse(value);
    if (!checked.success) return invalid(checked.error.issues, value, shape);
    return store.createCompliance(checked.data, text);
  }
  if (route === 'payment-details') {
    const checked = paymentDetailRequest.safeParse(value);
    if (!checked.success) return invalid(checked.error.issues, value, shape);
    return store.createPaymentDetail(clientUserId, checked.data, text);
  }
  // The agreement: reads never get here.
  const checked = agreementRequest.safeParse(value);
  if (!checked.success) return invalid(checked.error.issues, value, shape);
  return store.updateAgreement(clientUserId, checked.data);
}

function parseJson(req: IncomingMessage, text: string): { value: unknown } | Answer {
  // No body at all reads as `{}`, as Express does: the answer then names every missing field.
  if (text.trim() === '') return { value: {} };
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) {
    return { status: 415, body: nestError(415, 'Content-Type must be application/json') };
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    // JSON.parse's own message quotes the input, which may hold an ssn or an account number.
    return { status: 400, body: nestError(400, 'Malformed JSON in request body') };
  }
}

function invalid(issues: readonly z.core.$ZodIssue[], value: unknown, shape: ApiContext['errorShape']): Answer {
  if (shape === 'messages') return { status: 400, body: nestError(400, validationMessages(issues, value)) };
  // The shape of the service's other v2 operations: each problem with its code and the path of its field.
  const problems = issues.map((issue) => {
    const path = issue.path.map(String);
    const sentence = validationMessages([issue], value)[0]!;
    const field = `${path.join('.')} `;
    return { code: issue.code, message: sentence.startsWith(field) ? sentence.slice(field.length) : sentence, path };
  });
  return { status: 400, body: { statusCode: 400, message: problems, error: 'Bad Request' } };
}
