import { createHash, timingSafeEqual } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_PREFIX, type AdminTarget, handleAdmin } from './adminRoutes.js';
import { isRead, matchRoute, splitUrl, ScriptQueue, type ScriptedAnswer } from './routes.js';
import { operate, IdempotencyStore } from './api.js';
import { ACCOUNT_STATUSES } from './bankAccounts.js';
import { drawFault, type FaultKind, SlidingWindowLimiter, createRng, type Rng } from './faults.js';
import { nestError, throttled, readBody, send } from './http.js';
import { resolveSandboxOptions, type ResolvedSandboxOptions, type SandboxOptions } from '../options/sandboxOptions.js';
import { PayerStore } from './payerStore.js';
import { KYC_STATUSES } from './payers.js';
import { StatsRecorder } from './stats.js';

export interface SandboxHandle extends AdminTarget {
  /** `http://HOST:PORT`, no trailing slash; API paths go after it. */
  url: string;
  host: string;
  port: number;
  /** The resolved options (defaults applied). */
  options: ResolvedSandboxOptions;
  /** The most API requests that arrived within any `windowMs` window (over the retained arrivals). */
  maxInWindow(windowMs: number): number;
  /** Stops listening and drops every connection, including slow answers still waiting. */
  close(): Promise<void>;
}

/** Ids and faults use two streams derived from the one seed, so how many ids a run hands out does not shift its faults. */
const ID_STREAM = 0x9e3779b9;

/** Starts the Payer API sandbox on loopback (by default on any free port). */
export async function startSandbox(input: SandboxOptions = {}): Promise<SandboxHandle> {
  const options = resolveSandboxOptions(input);
  const stats = new StatsRecorder();
  const script = new ScriptQueue();
  // Off, the Idempotency-Key header is ignored, as the real service ignores it.
  const idempotency = options.idempotency === 'on' ? new IdempotencyStore() : undefined;
  const limiter = new SlidingWindowLimiter(options.rateLimit);
  let faultRng: Rng = createRng(options.seed);
  let idRng: Rng = createRng(options.seed ^ ID_STREAM);
  let url = '';
  const now = options.now ?? Date.now;
  const store = new PayerStore(
    {
      duplicates: options.duplicates,
      kycGate: options.kycGate,
      kycAfter: options.kycAfter,
      accountApproveMs: options.accountApproveMs,
      maskNumbers: options.maskNumbers,
      bareReads: options.bareReads,
      kycWord: options.kycWord,
      keepRequests: options.keepRequests,
      linkBase: () => url,
      now,
    },
    () => idRng,
    (event) => stats.count(event),
  );
  // Aborted by close(): ends latency and slow-answer waits so closing never hangs on them.
  const closing = new AbortController();
  // Every request waiting out its latency listens on it: a hundred at once is normal, not a leak.
  setMaxListeners(0, closing.signal);
  const sockets = new Set<Socket>();
  const expectedKey = digest(options.apiKey);

  const reply = (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void => {
    if (send(res, status, body, headers)) stats.answered(status);
  };

  async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    query: URLSearchParams,
  ): Promise<void> {
    stats.arrived(performance.timeOrigin + performance.now());
    res.once('close', () => stats.left());
    const method = req.method ?? 'GET';

    const body = await readBody(req, options.maxBodyBytes);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too-large') {
      // Past the drain ceiling the rest of the upload is never read: close the connection after answering.
      reply(
        res,
        413,
        nestError(413, `Request body is larger than ${options.maxBodyBytes} bytes`),
        body.drained ? {} : { connection: 'close' },
      );
      return;
    }
    if (options.latencyMs > 0 && !(await wait(options.latencyMs))) return;

    const match = matchRoute(method, pathname);
    if (match.kind === 'not-found') return reply(res, 404, nestError(404, `Cannot ${method} ${pathname}`));
    if (match.kind === 'bad-param')
      return reply(res, 400, nestError(400, 'clientUserId in the path is not valid percent-encoding'));
    stats.routed(match.route);
    if (isRead(match.route))
      res.once('finish', () => {
        if (res.statusCode === 404) stats.count('readsNotFound');
      });
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || !timingSafeEqual(digest(key), expectedKey)) {
      return reply(res, 401, nestError(401, 'Unauthorized'));
    }

    // A scripted step wins over the rate limit and random faults: tests ask for exactly this answer.
    let fault: FaultKind | undefined;
    const scripted = script.take(match.route);
    if (scripted !== undefined) {
      stats.count('scripted');
      if (scripted.fault === 'reset') return void req.socket.destroy();
      if (scripted.fault === undefined) return replyScripted(res, scripted);
      fault = scripted.fault;
    } else {
      const limit = limiter.check(performance.now());
      if (!limit.allowed) {
        stats.count('rateLimited');
        return reply(res, 429, throttled(), retryAfterHeader(limit.retryAfterSeconds));
      }
      fault = drawFault(faultRng, options);
      if (fault !== undefined) stats.fault(fault);
      if (fault === '429') return reply(res, 429, throttled(), retryAfterHeader(1));
      if (fault === '500') return reply(res, 500, nestError(500));
      if (fault === '503') return reply(res, 503, nestError(503));
      if (fault === 'reset') return void req.socket.destroy();
    }

    // operate() does not await: the lookup, the change and a remembered answer are one step.
    const { route, clientUserId } = match;
    const answer = operate(
      { store, idempotency, stats },
      { req, method, pathname, query, route, clientUserId, text: body.text },
    );
    if (fault === 'commit500') {
      const status = scripted?.status ?? 500;
      return reply(res, status, scripted?.body ?? nestError(status), scriptedHeaders(scripted));
    }
    if (fault === 'slow' && !(await wait(scripted?.delayMs ?? options.slowMs))) return;
    reply(res, answer.status, answer.body, answer.headers);
  }

  function replyScripted(res: ServerResponse, step: ScriptedAnswer): void {
    const status = step.status ?? 500;
    const body = step.body !== undefined ? step.body : status >= 400 ? nestError(status) : {};
    reply(res, status, body, scriptedHeaders(step));
  }

  function scriptedHeaders(step: ScriptedAnswer | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    if (step?.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
    if (step?.contentType !== undefined) headers['content-type'] = step.contentType;
    return headers;
  }

  function retryAfterHeader(seconds: number): Record<string, string> {
    return options.retryAfter ? { 'retry-after': String(seconds) } : {};
  }

  /** Resolves false when the sandbox closed during the wait (the socket is gone by then). */
  async function wait(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: closing.signal });
      return true;
    } catch {
      return false;
    }
  }

  const server = createServer((req, res) => {
    const { pathname, query } = splitUrl(req.url ?? '/');
    const work =
      pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`)
        ? handleAdmin(req, res, pathname, handle)
        : handleApi(req, res, pathname, query);
    work.catch(() => {
      // A bug here must not take the sandbox down: answer as NestJS does to an unhandled exception.
      if (!res.headersSent) reply(res, 500, nestError(500));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // A malformed request line or header: answer 400 and drop the connection rather than crash.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  url = `http://${hostInUrl}:${port}`;

  let closed: Promise<void> | undefined;
  const handle: SandboxHandle = {
    url,
    host: options.host,
    port,
    options,
    stats: () => stats.snapshot(),
    maxInWindow: (windowMs) => stats.arrivals.maxInWindow(windowMs),
    arrivals: () => stats.arrivals.toArray(),
    payer: (clientUserId) => store.get(clientUserId),
    setKyc: (clientUserId, kycStatus) => {
      const allowed: readonly string[] = [...new Set([...KYC_STATUSES, options.kycWord])];
      if (!allowed.includes(kycStatus)) throw new Error(`kycStatus must be one of: ${allowed.join(', ')}`);
      if (store.setKyc(clientUserId, kycStatus) === undefined)
        throw new Error(`Payer with client user ID ${clientUserId} not found`);
    },
    setPaymentDetailStatus: (id, status) => {
      if (!(ACCOUNT_STATUSES as readonly string[]).includes(status))
        throw new Error(`status must be one of: ${ACCOUNT_STATUSES.join(', ')}`);
      if (store.setPaymentDetailStatus(id, status) === undefined)
        throw new Error(`Payment detail with ID ${id} not found`);
    },
    script: (steps) => script.add(steps),
    pendingScript: () => script.pending,
    reset: () => {
      store.clear();
      idempotency?.clear();
      stats.reset();
      script.clear();
      limiter.reset();
      faultRng = createRng(options.seed);
      idRng = createRng(options.seed ^ ID_STREAM);
    },
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
  return handle;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
