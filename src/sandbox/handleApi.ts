import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRead, matchRoute, type ScriptQueue, type ScriptedAnswer } from './routes.js';
import { operate, type IdempotencyStore } from './api.js';
import { drawFault, type FaultKind, type SlidingWindowLimiter, type Rng } from './faults.js';
import { nestError, throttled, readBody, send } from './http.js';
import type { ResolvedSandboxOptions } from '../options/sandboxOptions.js';
import type { PayerStore } from './payerStore.js';
import type { StatsRecorder } from './stats.js';
import type { WebhookSender } from './webhooks.js';

/** What a running sandbox holds: made once by startSandbox, shared by every request, emptied by its handle's reset. */
export interface SandboxState {
  options: ResolvedSandboxOptions;
  stats: StatsRecorder;
  script: ScriptQueue;
  /** Off, the Idempotency-Key header is ignored, as the real service ignores it. */
  idempotency: IdempotencyStore | undefined;
  limiter: SlidingWindowLimiter;
  store: PayerStore;
  /** Reseeded by reset, so a reset sandbox draws the same faults and ids as a new one. */
  faultRng: Rng;
  idRng: Rng;
  /** `http://HOST:PORT` once listening; the links in the payers' answers start with it. */
  url: string;
  /** Aborted by close(): ends latency and slow-answer waits so closing never hangs on them. */
  closing: AbortController;
  sockets: Set<Socket>;
  /** The API key's digest: keys are compared digest to digest, in constant time whatever their lengths. */
  expectedKey: Buffer;
  /** Sends the service's webhooks; undefined without a webhook URL. */
  webhooks: WebhookSender | undefined;
}

/** Sends an answer, counted in the stats unless the client was gone before it could be sent. */
export function reply(
  state: SandboxState,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  if (send(res, status, body, headers)) state.stats.answered(status);
}

/** One request to the Payer API: its body, latency, route and key, then a scripted step or a fault, and the operation. */
export async function handleApi(
  state: SandboxState,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  query: URLSearchParams,
): Promise<void> {
  const { options, stats } = state;
  stats.arrived(performance.timeOrigin + performance.now());
  res.once('close', () => stats.left());
  const method = req.method ?? 'GET';

  const body = await readBody(req, options.maxBodyBytes);
  if (body.kind === 'aborted') return;
  if (body.kind === 'too-large') {
    // Past the drain ceiling the rest of the upload is never read: close the connection after answering.
    reply(
      state,
      res,
      413,
      nestError(413, `Request body is larger than ${options.maxBodyBytes} bytes`),
      body.drained ? {} : { connection: 'close' },
    );
    return;
  }
  if (options.latencyMs > 0 && !(await wait(state, options.latencyMs))) return;

  const match = matchRoute(method, pathname);
  if (match.kind === 'not-found') return reply(state, res, 404, nestError(404, `Cannot ${method} ${pathname}`));
  if (match.kind === 'bad-param')
    return reply(state, res, 400, nestError(400, 'clientUserId in the path is not valid percent-encoding'));
  stats.routed(match.route);
  if (isRead(match.route))
    res.once('finish', () => {
      if (res.statusCode === 404) stats.count('readsNotFound');
    });
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string' || !timingSafeEqual(digest(key), state.expectedKey)) {
    return reply(state, res, 401, nestError(401, 'Unauthorized'));
  }

  const scripted = state.script.take(match.route);
  const fault = scripted === undefined ? drawnFault(state, req, res) : scriptedFault(state, req, res, scripted);
  if (fault === 'answered') return;

  // operate() does not await: the lookup, the change and a remembered answer are one step.
  const { route, clientUserId } = match;
  const { store, idempotency } = state;
  const answer = operate(
    { store, idempotency, stats, errorShape: options.errorShape },
    { req, method, pathname, query, route, clientUserId, text: body.text },
  );
  if (fault === 'commit500') {
    const status = scripted?.status ?? 500;
    return reply(state, res, status, scripted?.body ?? nestError(status), scriptedHeaders(scripted));
  }
  if (fault === 'slow' && !(await wait(state, scripted?.delayMs ?? options.slowMs))) return;
  reply(state, res, answer.status, answer.body, answer.headers);
}

/**
 * A scripted step wins over the rate limit and random faults: tests ask for exactly this answer. `answered` when the
 * step was the whole answer; otherwise the fault it asks for once the operation has run.
 */
function scriptedFault(
  state: SandboxState,
  req: IncomingMessage,
  res: ServerResponse,
  scripted: ScriptedAnswer,
): FaultKind | 'answered' {
  state.stats.count('scripted');
  if (scripted.fault === 'reset') {
    req.socket.destroy();
    return 'answered';
  }
  if (scripted.fault === undefined) {
    replyScripted(state, res, scripted);
    return 'answered';
  }
  return scripted.fault;
}

/**
 * The rate limit, then a random fault drawn by the seed. `answered` when it answered in the operation's stead;
 * otherwise the fault to apply once the operation has run, if any.
 */
function drawnFault(
  state: SandboxState,
  req: IncomingMessage,
  res: ServerResponse,
): FaultKind | 'answered' | undefined {
  const { stats } = state;
  const limit = state.limiter.check(performance.now());
  if (!limit.allowed) {
    stats.count('rateLimited');
    if (limit.blocked) stats.count('blockedRequests');
    reply(state, res, 429, throttled(), retryAfterHeader(state, limit.retryAfterSeconds));
    return 'answered';
  }
  const fault = drawFault(state.faultRng, state.options);
  if (fault !== undefined) stats.fault(fault);
  if (fault === '429') reply(state, res, 429, throttled(), retryAfterHeader(state, 1));
  else if (fault === '500') reply(state, res, 500, nestError(500));
  else if (fault === '503') reply(state, res, 503, nestError(503));
  else if (fault === 'reset') req.socket.destroy();
  else return fault;
  return 'answered';
}

function replyScripted(state: SandboxState, res: ServerResponse, step: ScriptedAnswer): void {
  const status = step.status ?? 500;
  const body = step.body !== undefined ? step.body : status >= 400 ? nestError(status) : {};
  reply(state, res, status, body, scriptedHeaders(step));
}

function scriptedHeaders(step: ScriptedAnswer | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (step?.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
  if (step?.contentType !== undefined) headers['content-type'] = step.contentType;
  return headers;
}

function retryAfterHeader(state: SandboxState, seconds: number): Record<string, string> {
  return state.options.retryAfter ? { 'retry-after': String(seconds) } : {};
}

/** Resolves false when the sandbox closed during the wait (the socket is gone by then). */
async function wait(state: SandboxState, ms: number): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: state.closing.signal });
    return true;
  } catch {
    return false;
  }
}

export function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
