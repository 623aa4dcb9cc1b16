import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import cookiePlugin from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientKey } from '../core/clientKey.js';
import { packageRoot } from '../core/packageRoot.js';
import type { InboxPaths } from '../inbox/folders.js';
import type { ControlTables } from '../store/Store.js';
import { adminRoutes, type AdminSpec } from './adminRoutes.js';
import type { Audit } from './Audit.js';
import { fourEyesWords } from './fourEyes.js';
import { layout } from './layout.js';
import { welcomeRoutes } from './welcomeRoutes.js';
import { type OidcSignIn, oidcRoutes } from './oidcSignIn.js';
import { loginPage, refusalPage } from './pages.js';
import { payerLinkRoutes } from './payerLinkRoutes.js';
import { type PayerSpec, payerRoutes } from './payerRoutes.js';
import { progressRoutes } from './progressRoutes.js';
import { settingsRoutes } from './settingsRoutes.js';
import { uploadRoutes, type UploadSpec } from './uploadRoutes.js';
import { allows, roleFor } from './roles.js';
import { DEVICE_DAYS } from './SignInThrottle.js';
import { LONGEST_MS, type SignedIn, WebAuth } from './WebAuth.js';

export interface WebSpec extends UploadSpec, Omit<PayerSpec, 'headers'>, AdminSpec {
  auth: WebAuth;
  /** The audit trail: every action of the page writes its line there. */
  audit: Audit;
  /** The team's users and the audit trail, in the store. */
  controls: ControlTables;
  /** The inbox's folders: where a sent file is run, and its results. */
  paths: InboxPaths;
  /**
   * The Host headers the page answers to (the address serve listens on, its loopback names, the public one behind the
   * proxy): a page of another site whose name was pointed at this machine (DNS rebinding) is refused.
   */
  hosts: ReadonlySet<string>;
  /** Who holds the service and key while serve's work waits its turn (a person's run), else undefined. */
  heldBy: () => string | undefined;
  /** Sign-in with the company's identity provider, when it is set up. */
  oidc?: OidcSignIn | undefined;
}

const COOKIE = 'payer_onboard_session';
/** The browser's device cookie: it signed in as a user before, so other people's wrong tries do not slow it. */
const DEVICE_COOKIE = 'payer_onboard_device';

/**
 * Every response of the page: nothing may be loaded from elsewhere, framed, or kept by a cache (the pages hold
 * personal data); scripts and styles come only from this server's own files.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: a browser then sends `Origin: null` with every form, and the same-site check could not tell.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * The finance team's web page, served by `serve` beside the webhooks: sign-in first, then everything else. Every
 * form and call that changes something must come from this site (its Origin) and carry the session's CSRF token.
 */
export async function webRoutes(app: FastifyInstance, spec: WebSpec): Promise<void> {
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  await app.register(cookiePlugin);
  const assets = join(packageRoot(), 'web');
  // A name this page is not known by, or a form posted from another site, is refused before anything reads it.
  app.addHook('onRequest', async (request, reply) => {
    if (!spec.hosts.has(String(request.headers.host ?? '').toLowerCase()))
      return refuse(reply, 421, 'refused: this page is not served under that name');
    if (request.method === 'GET' || request.method === 'HEAD') return;
    if (!sameSite(request)) return refuse(reply, 403, 'refused: this form was sent from another site');
  });
  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode < 500 ? 400 : 500;
    const message =
      status === 400
        ? 'refused: the request did not arrive whole; try again'
        : 'something went wrong; nothing was sent';
    return refuse(reply, status, message);
  });
  // Every file of the package's web/ folder, read once: the stylesheet and the pages' scripts.
  for (const file of readdirSync(assets)) {
    const type = file.endsWith('.css')
      ? 'text/css; charset=utf-8'
      : file.endsWith('.js')
        ? 'text/javascript; charset=utf-8'
        : undefined;
    if (type === undefined) continue;
    const text = readFileSync(join(assets, file), 'utf8');
    app.get(`/assets/${file}`, async (_request, reply) => reply.type(type).send(text));
  }
  const company = spec.oidc !== undefined;
  app.get('/login', async (_request, reply) =>
    reply.type('text/html').send(layout('Sign in', loginPage(await spec.auth.sharedOpen(), undefined, company))),
  );
  app.post('/login', async (request, reply) => signIn(spec.auth, request, reply, company));
  welcomeRoutes(app, { ...spec, signedIn: (reply, opened) => withCookies(reply, opened) });
  if (spec.oidc) oidcRoutes(app, { ...spec, oidc: spec.oidc, signedIn: withCookies });
  // Signing out needs no token: only this site can post here (the same-site check above), and it only ends things.
  app.post('/logout', async (request, reply) => {
    await spec.auth.signOut(request.cookies[COOKIE], clientKey(request.ip));
    return reply.setCookie(COOKIE, '', cookieOptions(request, 0)).redirect('/login', 303);
  });
  await app.register(async (signedIn) => {
    signedIn.addHook('preHandler', async (request, reply) => {
      const session = await spec.auth.session(request.cookies[COOKIE]);
      if (session === undefined) {
        if (request.method === 'GET') return reply.redirect('/login', 303);
        return refuse(reply, 401, 'sign in first');
      }
      // Every signed-in page's footer says where four eyes stands, as the store has it now.
      (request as SignedIn).session = Object.assign(session, { fourEyes: fourEyesWords(await spec.fourEyes.stand()) });
      if (request.method !== 'GET' && !WebAuth.csrfValid(session, csrfOf(request)))
        return refuse(reply, 403, 'refused: the form is out of date or not from this page; reload it and try again');
      const needs = roleFor(request.method, request.routeOptions.url);
      if (allows(session.user.role, needs)) return;
      // A viewer's start is the Payers page.
      if (request.method === 'GET' && request.routeOptions.url === '/') return reply.redirect('/payers', 303);
      return refuse(
        reply,
        403,
        `refused: your role, ${session.user.role}, cannot do this; it needs ${needs}: an admin can change your role`,
      );
    });
    await uploadRoutes(signedIn, spec);
    await payerRoutes(signedIn, { ...spec, headers: SECURITY_HEADERS });
    await payerLinkRoutes(signedIn, spec);
    await adminRoutes(signedIn, spec);
    await settingsRoutes(signedIn, spec);
    await progressRoutes(signedIn, {
      uploads: spec.uploads,
      paths: spec.paths,
      headers: SECURITY_HEADERS,
      heldBy: spec.heldBy,
      who: (ids) => spec.book.who(ids),
    });
  });
}

async function signIn(auth: WebAuth, request: FastifyRequest, reply: FastifyReply, company: boolean): Promise<unknown> {
  const body = (request.body as Record<string, unknown> | undefined) ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const result = await auth.signIn({
    name: text(body.name),
    password: text(body.password),
    address: clientKey(request.ip),
    device: request.cookies[DEVICE_COOKIE],
  });
  if (typeof result === 'object' && 'token' in result) return withCookies(reply, result).redirect('/', 303);
  const why =
    result === 'wrong'
      ? 'That name and password do not match.'
      : result === 'shared-retired'
        ? 'The shared password no longer signs in: this team has named users, so sign in with your own name and password.'
        : `Too many wrong tries: try again in ${Math.ceil(result.wait / 1000)} s.`;
  return reply
    .code(result === 'wrong' || result === 'shared-retired' ? 401 : 429)
    .type('text/html')
    .send(layout('Sign in', loginPage(await auth.sharedOpen(), why, company)));
}

/** A browser signed in: its session's cookie, and the device cookie that says it signed in as this user before. */
function withCookies(reply: FastifyReply, opened: { token: string; device: string }): FastifyReply {
  return reply
    .setCookie(COOKIE, opened.token, cookieOptions(reply.request, LONGEST_MS / 1000))
    .setCookie(DEVICE_COOKIE, opened.device, cookieOptions(reply.request, DEVICE_DAYS * 86_400));
}

/**
 * The session's and the device's cookies: HttpOnly, SameSite=Strict, and Secure when the page came over TLS
 * (through a proxy that says so: Fastify believes X-Forwarded-Proto only from the proxies `--trust-proxy` names).
 */
function cookieOptions(request: FastifyRequest, maxAge: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    maxAge,
    secure: request.protocol === 'https',
  };
}

/** The token of a form (`_csrf`) or of a script's call (`x-csrf-token`). */
function csrfOf(request: FastifyRequest): unknown {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && '_csrf' in body) return body._csrf;
  // A file upload's form carries it in its action's query (its body is read only by the route); that form only.
  if (request.method !== 'POST' || request.routeOptions.url !== '/uploads') return undefined;
  return (request.query as Record<string, unknown> | undefined)?._csrf;
}

/**
 * Whether a request that changes something comes from this site: its Origin is this host's, or, with no Origin, the
 * browser's Sec-Fetch-Site says so. A request with neither (a script, curl) is let through to the CSRF check.
 */
function sameSite(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string') return origin === `${request.protocol}://${request.headers.host}`;
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html')
    .send(layout('Refused', refusalPage(message)));
}
