import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ACCOUNT_STATUSES, type AccountStatus } from './bankAccounts.js';
import type { ScriptStep } from './routes.js';
import { nestError, readBody, send } from './http.js';
import { type PageTarget, payerPage } from './payerPages.js';
import { KYC_STATUSES, type StoredPayer } from './payers.js';
import type { SandboxStats } from './stats.js';
import { TEST_EVENT_TYPES, type TestEventType } from './webhooks.js';

// The sandbox's own endpoints under /__sandbox: no key needed, not counted in the stats, no latency
// or faults. They let a sandbox started by the CLI be inspected and scripted from another process, and move
// what people and the provider move at the real service: a payer's KYC, a bank account's check. The pages a payer's
// links lead to (payerPages.ts) are here too.

/** What the admin routes act on: the running sandbox (its handle extends this). */
export interface AdminTarget extends PageTarget {
  stats(): SandboxStats;
  /** Arrival times of API requests in epoch ms, oldest first (the latest 200,000). */
  arrivals(): number[];
  /** What is stored for a payer: the bodies as received, the current answer and statuses. */
  payer(clientUserId: string): StoredPayer | undefined;
  /** Ends (or reopens) the provider's check of a stored account, by its id; throws for an unknown id. */
  setPaymentDetailStatus(id: string, status: AccountStatus): void;
  /** Forces the answers of the next requests of a route; see ScriptStep. Throws on a malformed step. */
  script(steps: readonly ScriptStep[]): void;
  /** Scripted requests not yet used. */
  pendingScript(): number;
  /** Forgets payers, keys, stats, script and rate-limit window, and reseeds: as good as a restart. */
  reset(): void;
  /**
   * Sends one test delivery of the event type (placeholder data, `x-request-network-test: true`, one attempt), as the
   * service's test endpoint does; rejects when no webhook URL is registered.
   */
  testWebhook(eventType: TestEventType): Promise<{ sent: number; failed: number }>;
}

export const ADMIN_PREFIX = '/__sandbox';

export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  sandbox: AdminTarget,
): Promise<void> {
  const method = req.method ?? 'GET';
  const rest = pathname.slice(ADMIN_PREFIX.length).replace(/\/$/, '');
  const [, what, param, action, ...more] = rest.split('/');
  const decoded = safeDecode(param);
  if (method === 'POST' && action !== undefined && more.length === 0 && decoded !== undefined) {
    if (what === 'payers' && action === 'kyc') {
      return setStatus(req, res, 'kycStatus', [...new Set([...KYC_STATUSES, sandbox.options.kycWord])], (kycStatus) => {
        sandbox.setKyc(decoded, kycStatus);
        const payer = sandbox.payer(decoded);
        return { clientUserId: decoded, kycStatus: payer?.kycStatus, agreementStatus: payer?.agreementStatus };
      });
    }
    if (what === 'payment-details' && action === 'status') {
      return setStatus(req, res, 'status', ACCOUNT_STATUSES, (status) => {
        sandbox.setPaymentDetailStatus(decoded, status);
        return { id: decoded, status };
      });
    }
  }
  if (action !== undefined) return void send(res, 404, nestError(404, `Cannot ${method} ${pathname}`));
  if (method === 'POST' && rest === '/webhooks/test') return testDelivery(req, res, sandbox);

  if (method === 'GET' && rest === '/stats') return void send(res, 200, sandbox.stats());
  if (method === 'GET' && rest === '/arrivals') return void send(res, 200, { arrivals: sandbox.arrivals() });
  if (method === 'GET' && what === 'payers' && decoded !== undefined) {
    const payer = sandbox.payer(decoded);
    return void send(res, payer ? 200 : 404, payer ?? nestError(404, `Payer with client user ID ${decoded} not found`));
  }
  if ((what === 'agreement' || what === 'kyc') && decoded !== undefined) {
    const read = method === 'GET' || method === 'HEAD';
    if (read || (method === 'POST' && what === 'kyc')) return payerPage(req, res, what, decoded, sandbox);
  }
  if (method === 'POST' && (rest === '/script' || rest === '/reset')) {
    const body = await readBody(req, 1024 * 1024);
    if (body.kind !== 'ok') return void send(res, 400, nestError(400, 'Unreadable request body'));
    if (rest === '/reset') {
      sandbox.reset();
      return void send(res, 200, { reset: true });
    }
    let steps: unknown;
    try {
      const parsed: unknown = JSON.parse(body.text || '[]');
      steps = Array.isArray(parsed) ? parsed : (parsed as { steps?: unknown } | null)?.steps;
    } catch {
      return void send(res, 400, nestError(400, 'Malformed JSON in request body'));
    }
    try {
      sandbox.script(steps as never);
    } catch (error) {
      const messages =
        error instanceof z.ZodError
          ? error.issues.map((i) => `steps.${i.path.map(String).join('.')}: ${i.message}`)
          : ['body must be an array of steps or { "steps": [...] }'];
      return void send(res, 400, nestError(400, messages));
    }
    return void send(res, 200, { pending: sandbox.pendingScript() });
  }
  send(res, 404, nestError(404, `Cannot ${method} ${pathname}`));
}

/**
 * Reads `{ [field]: value }`, checks the value against `allowed` (400 naming the field) and applies it: 200 with what
 * `apply` returns, or 404 with its message when it throws (an unknown payer or account).
 */
async function setStatus<S extends string>(
  req: IncomingMessage,
  res: ServerResponse,
  field: string,
  allowed: readonly S[],
  apply: (value: S) => unknown,
): Promise<void> {
  const body = await readBody(req, 64 * 1024);
  if (body.kind !== 'ok') return void send(res, 400, nestError(400, 'Unreadable request body'));
  let value: unknown;
  try {
    const parsed: unknown = JSON.parse(body.text || '{}');
    value = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[field] : undefined;
  } catch {
    return void send(res, 400, nestError(400, 'Malformed JSON in request body'));
  }
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    return void send(res, 400, nestError(400, [`${field} must be one of the following values: ${allowed.join(', ')}`]));
  }
  let answer: unknown;
  try {
    answer = apply(value as S);
  } catch (error) {
    return void send(res, 404, nestError(404, (error as Error).message));
  }
  send(res, 200, answer);
}

/** `{ "eventType": ... }` (compliance.updated when left out): one test delivery, answered with how it went. */
async function testDelivery(req: IncomingMessage, res: ServerResponse, sandbox: AdminTarget): Promise<void> {
  const body = await readBody(req, 64 * 1024);
  if (body.kind !== 'ok') return void send(res, 400, nestError(400, 'Unreadable request body'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text || '{}');
  } catch {
    return void send(res, 400, nestError(400, 'Malformed JSON in request body'));
  }
  const given =
    parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>)['eventType'] : parsed;
  const eventType = given ?? 'compliance.updated';
  if (typeof eventType !== 'string' || !(TEST_EVENT_TYPES as readonly string[]).includes(eventType))
    return void send(res, 400, nestError(400, [`eventType must be one of: ${TEST_EVENT_TYPES.join(', ')}`]));
  try {
    send(res, 200, await sandbox.testWebhook(eventType as TestEventType));
  } catch (error) {
    send(res, 409, nestError(409, (error as Error).message));
  }
}

function safeDecode(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
