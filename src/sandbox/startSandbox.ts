import { setMaxListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_PREFIX, type AdminTarget, handleAdmin } from './adminRoutes.js';
import { splitUrl, ScriptQueue } from './routes.js';
import { IdempotencyStore } from './api.js';
import { ACCOUNT_STATUSES } from './bankAccounts.js';
import { SlidingWindowLimiter, createRng } from './faults.js';
import { digest, handleApi, reply, type SandboxState } from './handleApi.js';
import { nestError } from './http.js';
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
  const state = createState(resolveSandboxOptions(input));
  // The admin routes act on the handle, made once the server listens and its port is known.
  let handle: SandboxHandle | undefined;
  const server = createSandboxServer(state, () => handle!);
  const port = await listen(server, state.options);
  const hostInUrl = state.options.host.includes(':') ? `[${state.options.host}]` : state.options.host;
  state.url = `http://${hostInUrl}:${port}`;
  handle = sandboxHandle(state, server, port);
  return handle;
}

function createState(options: ResolvedSandboxOptions): SandboxState {
  const stats = new StatsRecorder();
  const state: SandboxState = {
    options,
    stats,
    script: new ScriptQueue(),
    idempotency: options.idempotency === 'on' ? new IdempotencyStore() : undefined,
    limiter: new SlidingWindowLimiter(options.rateLimit),
    // Made just below: the store asks the state for the id stream and the url as it goes.
    store: undefined as unknown as PayerStore,
    faultRng: createRng(options.seed),
    idRng: createRng(options.seed ^ ID_STREAM),
    url: '',
    closing: new AbortController(),
    sockets: new Set(),
    expectedKey: digest(options.apiKey),
  };
  state.store = new PayerStore(
    {
      duplicates: options.duplicates,
      kycGate: options.kycGate,
      kycAfter: options.kycAfter,
      accountApproveMs: options.accountApproveMs,
      maskNumbers: options.maskNumbers,
      bareReads: options.bareReads,
      kycWord: options.kycWord,
      keepRequests: options.keepRequests,
      linkBase: () => state.url,
      now: options.now ?? Date.now,
    },
    () => state.idRng,
    (event) => stats.count(event),
  );
  // Every request waiting out its latency listens on it: a hundred at once is normal, not a leak.
  setMaxListeners(0, state.closing.signal);
  return state;
}

/** The HTTP server: the admin routes under ADMIN_PREFIX, the Payer API everywhere else. */
function createSandboxServer(state: SandboxState, admin: () => AdminTarget): Server {
  const server = createServer((req, res) => {
    const { pathname, query } = splitUrl(req.url ?? '/');
    const work =
      pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`)
        ? handleAdmin(req, res, pathname, admin())
        : handleApi(state, req, res, pathname, query);
    work.catch(() => {
      // A bug here must not take the sandbox down: answer as NestJS does to an unhandled exception.
      if (!res.headersSent) reply(state, res, 500, nestError(500));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    state.sockets.add(socket);
    socket.once('close', () => state.sockets.delete(socket));
  });
  // A malformed request line or header: answer 400 and drop the connection rather than crash.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

/** Listens on the options' host and port; resolves with the port (the one the system chose, for port 0). */
async function listen(server: Server, options: ResolvedSandboxOptions): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

function sandboxHandle(state: SandboxState, server: Server, port: number): SandboxHandle {
  const { options, stats, store, script } = state;
  let closed: Promise<void> | undefined;
  return {
    url: state.url,
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
      state.idempotency?.clear();
      stats.reset();
      script.clear();
      state.limiter.reset();
      state.faultRng = createRng(options.seed);
      state.idRng = createRng(options.seed ^ ID_STREAM);
    },
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        state.closing.abort();
        server.close(() => resolve());
        for (const socket of state.sockets) socket.destroy();
      });
      return closed;
    },
  };
}
