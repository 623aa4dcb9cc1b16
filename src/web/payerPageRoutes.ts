import { type LiveStream, liveStreams } from './liveStreams.js';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientKey } from '../core/clientKey.js';
import { packageRoot } from '../core/packageRoot.js';
import type { PayerLink } from '../store/Store.js';
import type { PayerAccess } from './payerPageAccess.js';
import { FrameChecks } from './payerPageFrame.js';
import { type PayerFactSources, payerSteps, readPayerFacts } from './payerPageState.js';
import { heldPage, notValidPage, payerPage, stepSections, troublePage } from './payerPageView.js';

export interface PayerPageSpec {
  access: PayerAccess;
  sources: PayerFactSources;
  /** The Host headers the page answers to (as the team's page: DNS rebinding is refused). */
  hosts: ReadonlySet<string>;
  /** The origins the agreement may be framed from and its message taken from, besides the agreementUrl's own. */
  origins: readonly string[];
  /** Emits `change` when serve ended a run, a batch of events or a check: each open page looks at its payer again. */
  changes: EventEmitter;
  /** The payer signed on their page: an event for the worker, which runs their waiting rows. */
  onSigned: (clientUserId: string) => Promise<void>;
  frames?: FrameChecks;
  /** One line for the operator: never a token, a URL of the page or a payer's value. */
  say: (line: string) => void;
}

/** The payer's cookie: the link it stands for and its signature; sent only to the payer's page (Path=/p). */
const COOKIE = 'payer_onboard_link';
/** A signature the page posts again (its event lost on the way) is recorded as an event again at most this often. */
const RESIGN_MS = 60_000;

/** Whether a request is one of the payer's page's: its answers carry that page's headers. */
export function isPayerPath(url: string): boolean {
  const path = url.split('?')[0]!;
  return path === '/p' || path.startsWith('/p/');
}

/**
 * Every answer of the payer's page: the team page's policy (nothing from elsewhere, no cache, not framed), but frames
 * from the agreement's origins only, and no Referer ever (the address once held the token).
 */
export function payerPageHeaders(frameOrigins: readonly string[]): Record<string, string> {
  return {
    'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src ${frameOrigins.join(' ')}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}

/**
 * The payer's own page under /p: `GET /p/<token>` exchanges a personal link for a cookie and leads to `GET /p`, which
 * shows what is still needed; `/p/live` follows changes, `POST /p/agreement` records the signature, `/p/frame` says
 * whether the agreement can be framed. No sign-in: the link is the key, checked again at every request.
 */
export async function payerPageRoutes(app: FastifyInstance, spec: PayerPageSpec): Promise<void> {
  const frames = spec.frames ?? new FrameChecks();
  const base = payerPageHeaders(spec.origins);
  /** A page's own policy: its frame may be of the payer's agreementUrl's origin too. */
  const policies = new WeakMap<FastifyRequest, string>();
  app.addHook('onRequest', async (request, reply) => {
    if (!spec.hosts.has(String(request.headers.host ?? '').toLowerCase()))
      return reply.code(421).type('text/plain').send('refused: this page is not served under that name');
    if (request.method !== 'GET' && request.method !== 'HEAD' && !sameSite(request))
      return reply.code(403).send({ error: 'refused: this was sent from another site' });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const policy = policies.get(request);
    if (policy !== undefined) reply.header('content-security-policy', policy);
    return payload;
  });
  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    if ((error.statusCode ?? 500) < 500) return reply.code(400).send({ error: 'refused: the request was not whole' });
    spec.say(`serve: the payer's page could not answer (${error.message})`);
    return reply.code(503).type('text/html').send(troublePage());
  });
  assetRoutes(app);

  app.get('/p/:token', async (request, reply) => {
    const opened = await spec.access.open((request.params as { token: string }).token, client(request));
    if (opened === 'not-valid') return reply.code(404).type('text/html').send(notValidPage());
    if ('heldMs' in opened) return held(reply, opened.heldMs);
    return reply.header('set-cookie', cookie(request, opened.cookie, opened.maxAge)).redirect('/p', 303);
  });
  for (const path of ['/p/', '/p/*'])
    app.get(path, async (_request, reply) => reply.code(404).type('text/html').send(notValidPage()));

  app.get('/p', async (request, reply) => {
    const link = await linkOf(spec, request);
    if (link === undefined) return reply.code(404).type('text/html').send(notValidPage());
    if ('heldMs' in link) return held(reply, link.heldMs);
    const steps = payerSteps(await readPayerFacts(spec.sources, link.clientUserId));
    const origins = frameOrigins(spec.origins, steps.agreementUrl);
    policies.set(request, payerPageHeaders(origins)['content-security-policy']!);
    return reply.type('text/html').send(payerPage(steps, { csrf: spec.access.csrf(link), origins }));
  });

  liveRoute(app, spec, base);

  const resigned = new Map<string, number>();
  app.post('/p/agreement', async (request, reply) => signed(spec, resigned, request, reply));

  app.get('/p/frame', async (request, reply) => {
    const link = await linkOf(spec, request);
    if (link === undefined || 'heldMs' in link) return reply.code(404).send({ error: 'not valid' });
    const { agreementUrl } = payerSteps(await readPayerFacts(spec.sources, link.clientUserId));
    const frame = agreementUrl === undefined ? 'unknown' : await frames.verdict(agreementUrl, originOf(request));
    return reply.send({ frame });
  });
}

/** The stylesheet and the page's script, read once; under /p, so that they carry the payer page's headers. */
function assetRoutes(app: FastifyInstance): void {
  const assets = join(packageRoot(), 'web');
  for (const [file, type] of [
    ['app.css', 'text/css; charset=utf-8'],
    ['payer.js', 'text/javascript; charset=utf-8'],
  ] as const) {
    const text = readFileSync(join(assets, file), 'utf8');
    app.get(`/p/assets/${file}`, async (_request, reply) => reply.type(type).send(text));
  }
}

/**
 * The agreement's frame said "complete" (the page's script took the message from an allowed origin): the signature
 * is recorded (the first stands) and an event asks the worker to run the payer's waiting rows, which complete the
 * agreement with the service. Answers the page's sections as they stand now.
 */
async function signed(
  spec: PayerPageSpec,
  /** When each payer's signature last made an event. */
  signedAt: Map<string, number>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const link = await linkOf(spec, request);
  if (link === undefined) return reply.code(404).send({ error: 'this link has expired or is not valid' });
  if ('heldMs' in link) return reply.code(429).header('retry-after', retryAfter(link.heldMs)).send({ error: 'wait' });
  if (!spec.access.csrfValid(link, request.headers['x-csrf-token']))
    return reply.code(403).send({ error: 'refused: the page is out of date; reload it' });
  const id = link.clientUserId;
  const before = payerSteps(await readPayerFacts(spec.sources, id));
  if (before.agreement !== 'done') {
    const first = await spec.sources.directory.sign({ clientUserId: id, how: 'page', at: new Date().toISOString() });
    const last = signedAt.get(id) ?? 0;
    // Once more only when the first event may have been lost (the page posts again), and not at every post.
    if (first || Date.now() - last > RESIGN_MS) {
      await spec.onSigned(id);
      if (signedAt.size >= 10_000) signedAt.clear();
      signedAt.set(id, Date.now());
    }
  }
  return reply.send({ sections: stepSections(payerSteps(await readPayerFacts(spec.sources, id))) });
}

/**
 * The page's live part: each change serve makes, the payer's state is read again and, when it differs from what
 * the page was last sent, its sections go out. Only this payer's: nothing of another reaches the stream. A link
 * revoked or expired meanwhile ends it (`gone`: the page reloads, and says the link is no longer valid).
 */
function liveRoute(app: FastifyInstance, spec: PayerPageSpec, headers: Record<string, string>): void {
  const open = liveStreams(app, spec.changes);
  app.get('/p/live', async (request, reply) => {
    const link = await linkOf(spec, request);
    if (link === undefined || 'heldMs' in link) return reply.code(404).type('text/html').send(notValidPage());
    let last = '';
    let running: Promise<void> | undefined;
    let again = false;
    const look = async (stream: LiveStream) => {
      do {
        again = false;
        if (!(await spec.access.stillValid(link))) {
          stream.send('event: gone\ndata: {}\n\n');
          stream.end();
          return;
        }
        const text = JSON.stringify(stepSections(payerSteps(await readPayerFacts(spec.sources, link.clientUserId))));
        if (text !== last) stream.send(`event: state\ndata: ${text}\n\n`);
        last = text;
      } while (again && !stream.ended);
    };
    // One look at a time; changes meanwhile make one more.
    const update = (stream: LiveStream) => {
      if (running !== undefined) {
        again = true;
        return;
      }
      running = look(stream)
        .catch(() => undefined)
        .finally(() => {
          running = undefined;
        });
    };
    // What changed between the page and this stream.
    update(open(request, reply, headers, update));
  });
}

async function linkOf(
  spec: PayerPageSpec,
  request: FastifyRequest,
): Promise<PayerLink | undefined | { heldMs: number }> {
  return spec.access.linkOf(cookieOf(request), client(request));
}

/** Who a client counts as for the guesses: behind a trusted proxy, the address it forwards. */
function client(request: FastifyRequest): string {
  return clientKey(request.ip ?? '');
}

function held(reply: FastifyReply, heldMs: number): FastifyReply {
  return reply.code(429).header('retry-after', retryAfter(heldMs)).type('text/html').send(heldPage(heldMs));
}

const retryAfter = (ms: number) => String(Math.ceil(ms / 1000));

/** The agreement's origins: the payer's agreementUrl's own first, then the others allowed. */
function frameOrigins(origins: readonly string[], agreementUrl: string | undefined): string[] {
  let own: string | undefined;
  try {
    own = agreementUrl === undefined ? undefined : new URL(agreementUrl).origin;
  } catch {
    // not a URL: no frame of it is allowed
  }
  return [...new Set([...(own === undefined || own === 'null' ? [] : [own]), ...origins])];
}

/**
 * The payer's cookie: HttpOnly; SameSite=Lax, since the link is opened from a mail, often a webmail's page: a browser
 * sends no Strict cookie on a navigation another site started, not even after serve's own redirect to /p, and the page
 * would say the link is not valid. Lax is sent on that top-level GET only; every change needs the page's token too.
 * Secure when the page came over TLS; Path=/p, so no other page of serve ever sees it.
 */
function cookie(request: FastifyRequest, value: string, maxAge: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${COOKIE}=${value}; Path=/p; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

function cookieOf(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=') || undefined;
  }
  return undefined;
}

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host}`;
}

/**
 * Whether a post comes from this site. The page sends no Referer, so a browser may send `Origin: null` with it: then
 * Sec-Fetch-Site says (a request with neither, not a browser's, is left to the token check).
 */
function sameSite(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') return origin === originOf(request);
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin';
}
