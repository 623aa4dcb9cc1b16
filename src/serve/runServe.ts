import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../core/errors.js';
import { Inbox, type InboxRunInput } from '../inbox/Inbox.js';
import type { FileOutcome } from '../inbox/processFile.js';
import type { JournalPlace } from '../journal/openJournal.js';
import { payerKeyOf } from '../journal/RowJournal.js';
import { journalDir, journalPlace, stateDirs, type UserPlaces } from '../journal/stateDir.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/Store.js';
import { StateLock } from '../journal/StateLock.js';
import { isLoopbackHost, readSecretFile, resolveConnection, resolveDatabaseUrl } from '../options/connection.js';
import { resolveInboxTimings } from '../options/inboxOptions.js';
import { type OidcInput, type OidcSettings, resolveOidc } from '../options/oidcOptions.js';
import { resolveRunOptions } from '../options/resolve.js';
import { checkServeOptions, RECHECK_WITH_WEBHOOKS_H, SERVE_OPTIONS } from '../options/serveOptions.js';
import { placesOf, type RunContext } from '../pipeline/RunSession.js';
import { osActor } from '../web/teamUsers.js';
import { EventLog } from './EventLog.js';
import { ServeMetrics } from './metrics.js';
import { webhookServer } from './webhookServer.js';
import { CatchUp, RETRY_WINDOW_MS } from './CatchUp.js';
import type { Invitations } from './Invitations.js';
import { serveMail, startInvitations } from './mailSetup.js';
import { Worker } from './Worker.js';
import type { MailSettings, MailSettingsInput } from '../mail/index.js';

/** Uploads of the web page older than this are removed when serve starts: they hold personal data. */
const UPLOADS_KEPT_MS = 7 * 24 * 3_600_000;

export interface ServeOptions extends OidcInput {
  /** The inbox folder (incoming/, waiting/, ...) this process runs. */
  inbox: string;
  host?: string;
  /** 0: any free port (what tests want). */
  port?: number;
  webhookPath?: string;
  /** The webhook secret itself, for a library caller; the CLI reads it from a file or PAYER_WEBHOOK_SECRET. */
  webhookSecret?: string;
  webhookSecretFile?: string;
  settle?: number;
  recheckAfter?: number;
  /** Milliseconds between looks at incoming/ when no event comes (default: half of settle, 200 ms to 5 s). */
  pollMs?: number;
  /** The first pause after a run stopped (the API down, the key refused); default 30 s, doubling up to 10 minutes. */
  pauseMs?: number;
  /**
   * A gap in taking webhooks longer than this is caught up (default: the service's retries, about 21 s); tests
   * shorten it.
   */
  catchUpAfterMs?: number;
  /** Hours without a webhook while payers wait before /healthz says so (default 24). */
  quietAfter?: number;
  /** Largest webhook body taken (default 1 MiB). */
  bodyLimit?: number;
  /** A webhook body must arrive whole within this (default 5 s). */
  bodyTimeoutMs?: number;
  run?: InboxRunInput;
  onFile?: (outcome: FileOutcome) => void;
  /** The web page's password, for a library caller; the CLI reads it from a file or PAYER_WEB_PASSWORD. */
  webPassword?: string;
  webPasswordFile?: string;
  /** The largest file the web page takes, in MB (default 25). */
  uploadLimitMb?: number;
  /**
   * serve's address behind a TLS proxy (`https://payers.example.com`; http only to loopback): its name is one the
   * pages answer to, and with it the payers' own page is on, at `/p/` (their links lead there).
   */
  publicUrl?: string;
  /** The origins the payer's page takes the agreement's completion from, comma-separated (the reference app's two). */
  agreementOrigins?: string;
  /** Days a payer's personal link (made on the team's page, or sent in a mail) stays valid (default 30). */
  linkDays?: number;
  /** The mail settings (`--mail-from`...): with them and `publicUrl`, serve invites and reminds the payers it registers. */
  mail?: MailSettingsInput;
  /** Days after the invitation of each reminder, `3,7` (fractions allowed), or `none`. */
  remindAfter?: string;
  /** The first pause once the mail server cannot be reached (default 1 s, doubling up to 5 minutes); tests shorten it. */
  mailPauseMs?: number;
  /**
   * The reverse proxies in front (IP addresses or CIDRs, comma-separated): only theirs is X-Forwarded-For (and -Proto)
   * believed. Without, every client is known by its connection's own address.
   */
  trustProxy?: string;
  /** The clock of the page's sessions and sign-in waits, for a test that stops it (default: Date.now). */
  webNow?: () => number;
}

export interface ServeHandle {
  /** `http://host:port`, the port the system gave for 0. */
  url: string;
  /** Whether webhooks are taken (a secret was given). */
  webhooks: boolean;
  metrics: ServeMetrics;
  /** Stops taking requests, lets what is in flight finish, flushes and releases everything. Resolves when done. */
  close(): Promise<void>;
  /** Resolves once the process may exit: after close(), or after the context's signal aborted and all was flushed. */
  closed: Promise<void>;
  /** What stopped the worker, when something unexpected did (the process should exit non-zero). */
  failure(): Error | undefined;
}

/**
 * `serve`: one long-running process over one inbox and its state dir. It takes the service's webhooks (recorded on
 * disk before they are answered), runs the rows they concern, rechecks waiting payers whose events never came, and
 * takes files dropped in incoming/; one worker sends, so nothing fights over the journal.
 */
export async function startServe(options: ServeOptions, context: RunContext = {}): Promise<ServeHandle> {
  const places = placesOf(context);
  const { trustProxy, agreementOrigins } = checkServeOptions(options);
  const secret = webhookSecret(options, places.env, places.cwd);
  const oidc = resolveOidc(options, places.env, places.cwd);
  const timings = resolveInboxTimings({
    settle: options.settle,
    recheckAfter: options.recheckAfter ?? (secret === undefined ? undefined : RECHECK_WITH_WEBHOOKS_H),
  });
  const say = (line: string) => context.stderr?.write(`${line}\n`);
  const stop = new AbortController();
  const signal = context.signal ? AbortSignal.any([context.signal, stop.signal]) : stop.signal;
  // Its runs enter the audit trail as the OS user and host serve runs as (the page's own line names who sent a file).
  const runContext: RunContext = { ...context, signal, holder: 'serve', actor: context.actor ?? osActor() };
  const metrics = new ServeMetrics();
  // Each run, batch of events or check that ends: the web page's Payers table follows.
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const inbox = openInbox(options, timings, metrics, runContext, () => changes.emit('change'));
  const held: Array<() => void | Promise<void>> = [() => inbox.release()];
  const releaseAll = async () => {
    for (const release of held.reverse()) await release();
  };
  try {
    // No webhooks taken, none lost: no catch-up.
    const catchUpAfterMs = secret === undefined ? undefined : (options.catchUpAfterMs ?? RETRY_WINDOW_MS);
    const events = await openEvents(inbox.runInput, places, say, catchUpAfterMs);
    held.push(events.release);
    inbox.waiting?.share(events.store);
    const { log, catchUp } = events;
    const mail = await openMail(options, places, inbox, events.journal, workerTimings(options, timings).pollMs, say);
    changes.on('change', () => mail.invitations?.ranFile());
    const worker = new Worker({
      ...workerTimings(options, timings),
      ...{ inbox, log, metrics, catchUp, say, journal: events.journal, store: events.store, context: runContext },
      mail: mail.invitations,
      onChecked: () => changes.emit('change'),
    });
    const webhookPath = options.webhookPath ?? SERVE_OPTIONS.webhookPath.default;
    const { web, payer, hosts } = await pages(options, places, inbox, runContext, {
      ...{ changes, agreementOrigins, say, mailState: mail.state, mailSettings: mail.settings, oidc, ...events },
      wake: () => worker.wake(),
      heldBy: () => worker.heldBy,
      onSigned: signatureEvent(log, worker),
    });
    // A page says payable only on a read: the approval of a bank account is read once at its event.
    worker.checkApproved = web !== undefined || payer !== undefined;
    const app = webhookServer({
      path: webhookPath,
      secret: secret ?? '',
      webhooks: secret !== undefined,
      log,
      metrics,
      bodyLimit: options.bodyLimit ?? 1024 * 1024,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 5000,
      trustProxy,
      onRecorded: () => worker.recorded(),
      // No webhooks, no note of their silence.
      health: () => health(log, worker, catchUp, secret === undefined ? Infinity : quietAfterMs(options), mail.state),
      say,
      web,
      payer,
    });
    const url = await listenOn(app, options);
    if (secret !== undefined) await catchUp.listening();
    for (const name of localHosts(url)) hosts.add(name);
    const webhooksAt = secret === undefined ? undefined : webhookPath;
    say(`serve: mail ${mail.state()}`);
    say(listeningLine(url, webhooksAt, web !== undefined, inbox.paths.root, payer?.at));
    let failure: Error | undefined;
    const working = worker.run(signal).catch((error: unknown) => {
      failure = error as Error;
      say(`serve: the worker failed: ${failure.message}`);
      stop.abort();
    });
    const closed = whenStopped(signal, async () => {
      // From here no webhook is taken: that moment is when a gap begins, however long the rest takes.
      await catchUp.stop();
      await closeApp(app);
      await working;
      await releaseAll();
      say(failure === undefined ? 'serve: stopped' : 'serve: stopped after a failure');
    });
    return {
      url,
      webhooks: secret !== undefined,
      metrics,
      failure: () => failure,
      close: async () => {
        stop.abort();
        await closed;
      },
      closed,
    };
  } catch (error) {
    await releaseAll();
    throw error;
  }
}

/**
 * serve's mails: checked (a mail setting without `--public-url`, or one that does not check, is exit 2), and started
 * over serve's store when on; `state` says where they stand, or why they are off.
 */
async function openMail(
  options: ServeOptions,
  places: UserPlaces,
  inbox: Inbox,
  journal: JournalPlace & { open: Store },
  pollMs: number,
  say: (line: string) => void,
): Promise<{ invitations: Invitations | undefined; state: () => string; settings?: MailSettings }> {
  const mail = serveMail(options, places, inbox.paths.root, say);
  if (!mail.on) return { invitations: undefined, state: () => `off: ${mail.why}` };
  const timing = { pollMs, pauseMs: options.mailPauseMs ?? 1000 };
  const invitations = await startInvitations(mail, journal, inbox.paths.results, timing, say);
  return { invitations, state: () => invitations.describe(), settings: mail.settings };
}

/** Listens where the options say; the address it got (`http://host:port`, the port the system gave for 0). */
async function listenOn(app: FastifyInstance, options: ServeOptions): Promise<string> {
  const address = await app.listen({ host: options.host ?? SERVE_OPTIONS.host.default, port: options.port ?? 0 });
  return address.replace(/\/$/, '');
}

/** How often the worker looks, rechecks and pauses. */
function workerTimings(options: ServeOptions, timings: { settle: number; recheckAfter: number }) {
  return {
    recheckAfterMs: timings.recheckAfter * 3_600_000,
    pollMs: options.pollMs ?? Math.min(5000, Math.max(200, (timings.settle * 1000) / 2)),
    pauseMs: options.pauseMs ?? 30_000,
  };
}

/**
 * What serve says once it listens: where the webhooks and the page are, or why they are off, and its inbox; then
 * where the payers' links lead, when their page is on.
 */
function listeningLine(
  url: string,
  webhookPath: string | undefined,
  page: boolean,
  inbox: string,
  payerPageAt: string | undefined,
): string {
  const where = webhookPath === undefined ? 'webhooks off: no secret' : `webhooks at ${url}${webhookPath}`;
  const line = `serve: listening on ${url} (${where}; ${page ? `web page at ${url}/` : 'web page off: no password'}); inbox ${inbox}`;
  return payerPageAt === undefined
    ? line
    : `${line}\nserve: the payers' own page is on: their links lead to ${payerPageAt}/p/`;
}

/**
 * A payer signed on their page: an event of serve's own, beside the service's, with a delivery id of its own; the
 * worker then runs the payer's waiting rows, as for a webhook, and the run completes the agreement.
 */
function signatureEvent(log: EventLog, worker: Worker): (clientUserId: string) => Promise<void> {
  return async (clientUserId) => {
    const event = { event: 'agreement.signed', clientUserId, source: 'payer-page' };
    await log.record(event, `page-${randomBytes(16).toString('hex')}`);
    worker.wake();
  };
}

/** The inbox serve runs, its lock held; each file's rows and requests counted in the metrics. */
function openInbox(
  options: ServeOptions,
  timings: { settle: number; recheckAfter: number },
  metrics: ServeMetrics,
  context: RunContext,
  changed: () => void,
): Inbox {
  return Inbox.open(
    {
      dir: options.inbox,
      holder: 'serve',
      ...timings,
      ...(options.run ? { run: options.run } : {}),
      onFile: (outcome) => {
        metrics.addRun(outcome.summary?.rows, outcome.summary?.requests);
        options.onFile?.(outcome);
        changed();
      },
    },
    context,
  );
}

/**
 * The event log of the service and key the run options name, in its journal's folder (the events are of that
 * account), with a lock of its own: two serve processes over one state dir would otherwise both act on them.
 */
async function openEvents(
  runInput: InboxRunInput,
  places: UserPlaces,
  say: (line: string) => void,
  /** None: no webhooks are taken, so none can be lost, and there is nothing to catch up. */
  catchUpAfterMs: number | undefined,
) {
  const run = resolveRunOptions({ ...runInput, inputs: ['(serve)'] }, places.env);
  if (run.sandbox)
    throw new ConfigError(
      'serve: --sandbox keeps no journal to serve; start `payer-onboard sandbox` and give its --base-url',
      'E_USAGE',
    );
  // Each would make every file and event batch a partial run that looks finished: waiting rows would be dropped.
  const partial = [run.dryRun && '--dry-run', run.limit !== undefined && '--limit', run.only !== undefined && '--only'];
  const refused = partial.filter(Boolean);
  if (refused.length > 0)
    throw new ConfigError(`serve: ${refused.join(', ')} cannot be used with serve: use them with run`, 'E_USAGE');
  const { baseUrl, apiKey } = resolveConnection(run, places.env, places.cwd);
  const state = stateDirs(run.stateDir, places);
  const dir = journalDir(state.dir, baseUrl, apiKey);
  const lock = StateLock.acquire(join(dir, 'events.lock'), 'serve', { what: 'serve', using: dir });
  try {
    const databaseUrl = resolveDatabaseUrl(run, places.env, places.cwd);
    const journal = journalPlace(state, baseUrl, apiKey, databaseUrl);
    // The store every run of serve keeps its journal in, opened now for serve's life (it keeps the events): one that
    // cannot be (a state dir this user cannot write, a database that refuses) is said at start, once.
    const store = await openStore(journal);
    let log: EventLog;
    try {
      log = await EventLog.open(
        store.events(journal.service),
        store.journal(journal.service),
        join(dir, 'events.jsonl'),
      );
    } catch (error) {
      await store.close();
      throw error;
    }
    log.onDoneFailure = (error) =>
      say(
        `serve: events acted on could not be marked done (${error.message}); they are acted on again after a restart, which changes nothing`,
      );
    // When serve was last alive: a gap longer than the service's retries is caught up.
    const catchUp = new CatchUp(store.journal(journal.service), say, catchUpAfterMs);
    if (catchUpAfterMs !== undefined) await catchUp.start();
    const release = async () => {
      await catchUp.stop();
      await log.settled();
      await store.close();
      lock.release();
    };
    // What serve reads of the journal (events matched to payers, the web page) goes through this store too.
    return { log, catchUp, journal: { ...journal, open: store }, store, release };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** A page serve shows: its routes and the headers of its answers. */
interface WebPage {
  routes: (scope: FastifyInstance) => Promise<void>;
  headers: Record<string, string>;
}

/** What the pages are served with: serve's store and journal, its worker, its changes. */
interface Serving {
  wake: () => void;
  heldBy: () => string | undefined;
  changes: EventEmitter;
  journal: JournalPlace;
  store: Store;
  agreementOrigins: string[];
  onSigned: (clientUserId: string) => Promise<void>;
  say: (line: string) => void;
  /** Where the mails stand, for the Payers page. */
  mailState: () => string;
  /** The mail settings, when serve's mail is set up: the users page mails a user's one-time link too. */
  mailSettings: MailSettings | undefined;
  /** Sign-in with the company's identity provider, when it is set up. */
  oidc: OidcSettings | undefined;
}

/**
 * The pages serve shows: the team's when the operator set its password, the payers' own when serve has a public
 * address; the names they answer to (loopback's are added once serve listens). Both read the payers from one book.
 */
async function pages(
  options: ServeOptions,
  places: UserPlaces,
  inbox: Inbox,
  context: RunContext,
  serving: Serving,
): Promise<{ web?: WebPage; payer?: WebPage & { owns: (url: string) => boolean; at: string }; hosts: Set<string> }> {
  const hosts = new Set<string>();
  if (options.publicUrl !== undefined) hosts.add(publicHost(options.publicUrl, options.trustProxy !== undefined));
  const password = secretFrom(
    '--web-password-file',
    options.webPasswordFile,
    options.webPassword ?? places.env.PAYER_WEB_PASSWORD,
    places.cwd,
  );
  // The team's page is on with a shared password, with the company's identity provider, or once the team has a named
  // user (`payer-onboard users add`).
  const team =
    password !== undefined ||
    serving.oidc !== undefined ||
    (await serving.store.controls(serving.journal.service).users()).length > 0;
  if (!team && options.publicUrl === undefined) return { hosts };
  const module = await import('../web/index.js');
  const book = new module.PayerBook(
    inbox.paths.results,
    { ...serving.journal, open: serving.store },
    serving.mailState,
  );
  serving.changes.on('change', () => book.changed());
  const web = !team
    ? undefined
    : await teamPage(module, password, options, places, inbox, context, { ...serving, book, hosts });
  if (options.publicUrl === undefined) return { web, hosts };
  const directory = serving.store.directory(serving.journal.service);
  const spec = {
    access: await module.PayerAccess.open(serving.store.journal(serving.journal.service), directory),
    sources: {
      journal: { ...serving.journal, open: serving.store },
      directory,
      book,
      waiting: async (id: string) => (await inbox.waitingOf([payerKeyOf(id)])).length > 0,
    },
    hosts,
    origins: serving.agreementOrigins,
    changes: serving.changes,
    onSigned: serving.onSigned,
    say: serving.say,
  };
  const payer = {
    routes: (scope: FastifyInstance) => module.payerPageRoutes(scope, spec),
    headers: module.payerPageHeaders(serving.agreementOrigins),
    owns: module.isPayerPath,
    at: new URL(options.publicUrl).origin,
  };
  return { web, payer, hosts };
}

/**
 * The team's web page (the operator set its password, in a file or PAYER_WEB_PASSWORD). Uploads are kept under the
 * inbox, and a file sent goes into its incoming/ like any dropped file.
 */
async function teamPage(
  module: typeof import('../web/index.js'),
  password: string | undefined,
  options: ServeOptions,
  places: UserPlaces,
  inbox: Inbox,
  context: RunContext,
  serving: Serving & { book: InstanceType<typeof import('../web/index.js').PayerBook>; hosts: Set<string> },
): Promise<WebPage> {
  const { webRoutes, WebAuth, Audit, FourEyes, Uploads, UploadReader, READER_LIMITS, Mappings } = module;
  const { SECURITY_HEADERS, MIN_PASSWORD } = module;
  if (password !== undefined && password.length < MIN_PASSWORD)
    throw new ConfigError(
      `serve: the web page's password (--web-password-file or PAYER_WEB_PASSWORD) must be at least ${MIN_PASSWORD} characters`,
      'E_USAGE',
    );
  // Users, sessions, the audit trail and saved mappings live in serve's store: a restart signs nobody out, and a
  // second serve sees them.
  const kept = {
    web: serving.store.web(serving.journal.service),
    controls: serving.store.controls(serving.journal.service),
    settings: serving.store.journal(serving.journal.service),
  };
  const audit = new Audit(kept.controls);
  const now = options.webNow ? { now: options.webNow } : {};
  const oidc =
    serving.oidc === undefined
      ? undefined
      : await module.OidcSignIn.start(serving.oidc, serving.say, { ...kept, ...now });
  const mappings = new Mappings(kept.web);
  // Uploaded files are read and checked in processes of their own, killed when serve stops.
  const reader = new UploadReader(READER_LIMITS, context.signal);
  const uploads = new Uploads(
    join(inbox.paths.root, '.web', 'uploads'),
    inbox.paths.incoming,
    mappings,
    kept.web,
    reader,
    kept.settings,
  );
  await uploads.prune(UPLOADS_KEPT_MS);
  const auth = await WebAuth.create({ password, ...kept, audit, ...now });
  const spec = {
    auth,
    audit,
    fourEyes: new FourEyes(kept.settings, kept.controls, () => auth.sharedOpen()),
    controls: kept.controls,
    uploads,
    hosts: serving.hosts,
    limitMb: options.uploadLimitMb ?? 25,
    runInput: inbox.runInput,
    context,
    service: resolveRunOptions({ ...inbox.runInput, inputs: ['(serve)'] }, places.env).baseUrl ?? '',
    onSent: serving.wake,
    heldBy: serving.heldBy,
    oidc,
    book: serving.book,
    journal: serving.journal,
    changes: serving.changes,
    resultsDir: inbox.paths.results,
    paths: inbox.paths,
    publicUrl: options.publicUrl,
    mail: serving.mailSettings,
    ...(options.publicUrl === undefined
      ? {}
      : {
          links: {
            directory: serving.store.directory(serving.journal.service),
            publicUrl: options.publicUrl,
            days: options.linkDays ?? SERVE_OPTIONS.linkDays.default,
          },
        }),
  };
  return { routes: (scope) => webRoutes(scope, spec), headers: SECURITY_HEADERS };
}

/**
 * The name in `--public-url`, checked. An https address is a TLS proxy's (serve speaks plain HTTP): without
 * `--trust-proxy` naming it, every form sent through it would be refused as coming from another site (its Origin is
 * https, the request as serve sees it http) and the session cookie would not be Secure.
 */
function publicHost(url: string, proxyTrusted: boolean): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // said below
  }
  if (parsed?.protocol === 'https:' && !proxyTrusted)
    throw new ConfigError(
      `--public-url: ${parsed.origin} is served by a TLS proxy: name its address with --trust-proxy (127.0.0.1 for a proxy on this machine)`,
      'E_USAGE',
    );
  // The payers' links are keys to their pages: never sent in the clear beyond this machine.
  if (parsed?.protocol === 'http:' && !isLoopbackHost(parsed.hostname))
    throw new ConfigError(
      `--public-url: ${parsed.origin} would carry the payers' personal links in the clear: give the https:// address of your TLS proxy (http only to this machine, to try it)`,
      'E_USAGE',
    );
  if (parsed?.protocol === 'https:' || parsed?.protocol === 'http:') return parsed.host.toLowerCase();
  throw new ConfigError('--public-url: must be an https:// URL, such as https://payers.example.com', 'E_USAGE');
}

const quietAfterMs = (options: ServeOptions) => (options.quietAfter ?? SERVE_OPTIONS.quietAfter.default) * 3_600_000;

/** The names a server listening on `url` is reached by on this machine. */
function localHosts(url: string): string[] {
  const { host, port } = new URL(url);
  return [host, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
}

/**
 * What /healthz says besides `ok`: where the mails stand, events not yet acted on, and whether the worker is busy, or
 * paused and why.
 */
function health(
  log: EventLog,
  worker: Worker,
  catchUp: CatchUp,
  quietAfterMs: number,
  mail: () => string,
): Record<string, unknown> {
  return {
    mail: mail(),
    eventsPending: log.pendingCount(),
    busy: worker.busy,
    worker: worker.paused() ? 'paused' : 'going',
    ...(worker.stopReason ? { stopReason: worker.stopReason } : {}),
    ...(catchUp.progress ? { catchUp: catchUp.progress } : {}),
    ...quiet(quietAfterMs, worker),
  };
}

/**
 * The service lists its payer events under "legacy integrations": when none has come for `afterMs` while payers
 * wait, /healthz says so (with webhooks on), and the recheck carries the load.
 */
function quiet(afterMs: number, worker: Worker): Record<string, unknown> {
  const { waitingPayers: waiting, lastEventAt } = worker;
  if (waiting === 0 || Date.now() - lastEventAt < afterMs) return {};
  return {
    quiet: {
      since: new Date(lastEventAt).toISOString(),
      waitingPayers: waiting,
      note: `no webhook for ${Math.floor((Date.now() - lastEventAt) / 3_600_000)} h while ${waiting} payers wait: the service lists these events under legacy integrations; check the webhook registered for this Client ID. The recheck (--recheck-after) reads them meanwhile`,
    },
  };
}

/**
 * The server closed: no request taken, those in flight answered. A keep-alive connection that goes idle once its
 * answer is sent (a page whose upload's check was cut short by the stop, say) is closed then, not left open for its
 * keep-alive of 65 s: Node closes the idle ones only when the close begins.
 */
async function closeApp(app: FastifyInstance): Promise<void> {
  const idle = setInterval(() => app.server.closeIdleConnections(), 100);
  try {
    await app.close();
  } finally {
    clearInterval(idle);
  }
}

/** Runs `finish` once the signal aborts (at once if it has); resolves when it is done. */
function whenStopped(signal: AbortSignal, finish: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const go = () => finish().then(resolve, reject);
    if (signal.aborted) go();
    else signal.addEventListener('abort', go, { once: true });
  });
}

/** The webhook secret from the file, or the given one, or the environment's; none turns webhooks off. */
function webhookSecret(options: ServeOptions, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  return secretFrom(
    '--webhook-secret-file',
    options.webhookSecretFile,
    options.webhookSecret ?? env.PAYER_WEBHOOK_SECRET,
    cwd,
  );
}

/** A secret read from a file (its flag named when it cannot be), else the one given; blank counts as none. */
function secretFrom(
  flag: string,
  file: string | undefined,
  given: string | undefined,
  cwd: string,
): string | undefined {
  if (file !== undefined) return readSecretFile(file, flag, cwd);
  return given || undefined;
}
