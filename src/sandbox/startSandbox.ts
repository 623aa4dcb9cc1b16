import { setMaxListeners } from 'node:events';
import { readFile } from 'node:fs/promises';
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
import { WebhookSender } from './webhooks.js';
import { ConfigError } from '../core/errors.js';

export interface SandboxHandle extends AdminTarget {
  /** `http://HOST:PORT`, no trailing slash; API paths go after it. */
  url: string;
  host: string;
  port: number;
  /** The resolved options (defaults applied). */
  options: ResolvedSandboxOptions;
  /** The most API requests that arrived within any `windowMs` window (over the retained arrivals). */
  maxInWindow(windowMs: number): number;
  /**
   * Registers the URL the webhooks go to from now on (as the service's portal does): for a receiver that learns its
   * own port only once it listens. Needs the signing secret among the options.
   */
  setWebhookUrl(url: string): void;
  /** Stops listening and drops every connection, including slow answers still waiting. */
  close(): Promise<void>;
}

/** Ids and faults use two streams derived from the one seed, so how many ids a run hands out does not shift its faults. */
const ID_STREAM = 0x9e3779b9;
/** The webhooks' drop and twice draws: a third stream, so turning webhooks on does not shift the API's faults. */
const WEBHOOK_STREAM = 0x85ebca6b;

/** Starts the Payer API sandbox on loopback (by default on any free port). */
export async function startSandbox(input: SandboxOptions = {}): Promise<SandboxHandle> {
  const options = resolveSandboxOptions(input);
  const state = createState(options, await webhookSecret(options));
  // The admin routes act on the handle, made once the server listens and its port is known.
  let handle: SandboxHandle | undefined;
  const server = createSandboxServer(state, () => handle!);
  const port = await listen(server, state.options);
  const hostInUrl = state.options.host.includes(':') ? `[${state.options.host}]` : state.options.host;
  state.url = `http://${hostInUrl}:${port}`;
  handle = sandboxHandle(state, server, port);
  return handle;
}

/** The secret from `webhookSecretFile` (read here) or given; required when webhooks go somewhere. */
async function webhookSecret(options: ResolvedSandboxOptions): Promise<string | undefined> {
  let secret = options.webhookSecret;
  if (options.webhookSecretFile !== undefined) {
    const path = options.webhookSecretFile;
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(`--webhook-secret-file: cannot read ${path} (${error.code})`, 'E_USAGE');
    });
    secret = text.trim();
    if (secret === '') throw new ConfigError(`--webhook-secret-file: ${path} is empty`, 'E_USAGE');
  }
  if (options.webhookUrl !== undefined && secret === undefined) {
    throw new ConfigError(
      '--webhook-url: the webhooks need a signing secret: set PAYER_WEBHOOK_SECRET or give --webhook-secret-file FILE',
      'E_USAGE',
    );
  }
  return secret;
}

function createState(options: ResolvedSandboxOptions, secret: string | undefined): SandboxState {
  const stats = new StatsRecorder();
  const state: SandboxState = {
    options,
    stats,
    script: new ScriptQueue(),
    idempotency: options.idempotency === 'on' ? new IdempotencyStore() : undefined,
    limiter: new SlidingWindowLimiter(options.rateLimit, options.blockSeconds * 1000),
    // Made just below: the store asks the state for the id stream and the url as it goes.
    store: undefined as unknown as PayerStore,
    faultRng: createRng(options.seed),
    idRng: createRng(options.seed ^ ID_STREAM),
    url: '',
    closing: new AbortController(),
    sockets: new Set(),
    expectedKey: digest(options.apiKey),
    webhooks: undefined,
  };
  if (secret !== undefined) {
    state.webhooks = new WebhookSender({
      url: options.webhookUrl,
      secret,
      drop: options.webhookDrop,
      twice: options.webhookTwice,
      timeScale: options.webhookTimeScale,
      accountShape: options.webhookAccountShape,
      rng: createRng(options.seed ^ WEBHOOK_STREAM),
      now: options.now ?? Date.now,
      count: (counter) => stats.count(counter),
      closing: state.closing.signal,
    });
  }
  state.store = new PayerStore(
    {
      duplicates: options.duplicates,
      kycGate: options.kycGate,
      agreementGate: options.agreementGate,
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
    (clientUserId, created) => watchPayer(state, clientUserId, created),
  );
  // Every request waiting out its latency listens on it: a hundred at once is normal, not a leak.
  setMaxListeners(0, state.closing.signal);
  return state;
}

/** Lets the webhook sender compare the payer with what it last saw, and look again when the clock moves a status. */
function watchPayer(state: SandboxState, clientUserId: string, created?: 'payer' | 'account'): void {
  const sender = state.webhooks;
  if (sender === undefined) return;
  const look = (): void => sender.observe(state.store.get(clientUserId));
  look();
  const { kycAfter, accountApproveMs } = state.options;
  if (created === 'payer' && kycAfter !== undefined && kycAfter > 0) sender.later(kycAfter * 1000 + 1, look);
  if (created === 'account') sender.later(accountApproveMs + 1, look);
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
    payerOfUser: (userId) => {
      const clientUserId = store.clientUserIdOf(userId);
      return clientUserId === undefined ? undefined : store.get(clientUserId);
    },
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
    setWebhookUrl: (url) => {
      if (state.webhooks === undefined)
        throw new Error('setWebhookUrl: the sandbox was started without a webhook secret');
      state.webhooks.setUrl(url);
    },
    testWebhook: (eventType) => {
      if (state.webhooks === undefined)
        return Promise.reject(new Error('no webhook URL is registered: give --webhook-url'));
      return state.webhooks.sendTest(eventType);
    },
    reset: () => {
      store.clear();
      state.idempotency?.clear();
      stats.reset();
      script.clear();
      state.limiter.reset();
      state.faultRng = createRng(options.seed);
      state.idRng = createRng(options.seed ^ ID_STREAM);
      state.webhooks?.clear();
    },
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        state.closing.abort();
        state.webhooks?.close();
        server.close(() => resolve());
        for (const socket of state.sockets) socket.destroy();
      });
      return closed;
    },
  };
}
