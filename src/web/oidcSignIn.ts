import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as client from 'openid-client';
import { clientKey } from '../core/clientKey.js';
import { html } from '../core/html.js';
import { OIDC_CALLBACK_PATH, type OidcSettings } from '../options/oidcOptions.js';
import { type ControlTables, type JournalTables, ROLES, type Role, type WebUser } from '../store/Store.js';
import type { Actor, Audit } from './Audit.js';
import { layout } from './layout.js';
import { loginPage } from './pages.js';
import { isRole } from './roles.js';
import { SignInThrottle } from './SignInThrottle.js';
import { addUser, changeUser } from './teamUsers.js';
import type { Session, Viewer, WebAuth } from './WebAuth.js';

/**
 * The browser's sign-in under way: its state, nonce and PKCE verifier, for the provider's redirect back. SameSite=Lax,
 * not Strict: the browser comes back from another site, and a Strict cookie would stay behind.
 */
const FLOW_COOKIE = 'payer_onboard_oidc';
/** Where the flow starts; its cookie's path, which the callback's is under. */
const FLOW_PATH = '/login/oidc';
/** Time to sign in at the provider (a second factor included) before the sign-in must start again. */
const FLOW_SECONDS = 600;
/** Who adds a user, or changes their role, on the identity provider's word: the audit trail and `createdBy` say so. */
const OIDC_WHO = 'oidc';
/** A provider that did not answer is looked for again at a sign-in's start, but not more often than this. */
const LOOK_AGAIN_MS = 10_000;
const UNREACHABLE =
  "Your company's sign-in cannot be reached just now: sign in with your password, or try again later.";
/** What the provider is asked for: who (openid), the e-mail that matches a user, and a name for one added. */
const SCOPES = ['openid', 'email', 'profile'];

/** The ID token's claims, with the userinfo's where the token left them out. */
type Claims = Record<string, unknown>;

/** A sign-in that did not come through: why, in the audit trail's words and in the person's. */
interface Refusal {
  why: string;
  message: string;
  status: number;
  /** The user it was for, when one was found; the e-mail (masked in the trail) when one was given. */
  user?: WebUser;
  email?: string;
  /** Who the audit trail names when no user was found: `(no such user)` for an e-mail that is none's. */
  who?: string;
}

/**
 * Sign-in with the company's identity provider (OpenID Connect, authorization code with PKCE): where the provider
 * is (discovered once it answers), and the two legs of the flow. Claims are believed only from the provider's signed
 * ID token or its userinfo, fetched with the token it just gave.
 */
export class OidcSignIn {
  private config: client.Configuration | undefined;
  /** The last look for the provider that failed, and why: serve said so, and says when it answers. */
  private missed: { at: number; problem: string } | undefined;

  private constructor(
    readonly settings: OidcSettings,
    /**
     * Answers that do not sign anyone in, counted per address as wrong passwords are (apart from them): each is a
     * line of the append-only audit trail, and a stranger could otherwise send them without end.
     */
    readonly throttle: SignInThrottle,
    private readonly say: (line: string) => void,
    private readonly now: () => number,
  ) {}

  /**
   * Finds the provider at serve's start. One that does not answer leaves this sign-in off, said in one line, and
   * the page's passwords work: each "Sign in with your company account" looks for it again.
   */
  static async start(
    settings: OidcSettings,
    say: (line: string) => void,
    kept: { controls: ControlTables; settings: JournalTables; now?: () => number },
  ): Promise<OidcSignIn> {
    const now = kept.now ?? Date.now;
    const oidc = new OidcSignIn(settings, await SignInThrottle.open(kept.controls, kept.settings, now), say, now);
    const found = await oidc.configuration();
    if (typeof found === 'string')
      say(
        `serve: sign-in with the identity provider is off until ${settings.issuer.href} answers (${found}); passwords still sign in, and each try of it looks again`,
      );
    else say(`serve: sign-in with the identity provider ${found.serverMetadata().issuer} is on`);
    return oidc;
  }

  /** Where to send the browser, and the cookie that carries the flow's secrets until it comes back; or why not. */
  async begin(): Promise<{ url: string; flow: string } | { problem: string }> {
    const config = await this.configuration();
    if (typeof config === 'string') return { problem: config };
    const state = client.randomState();
    const nonce = client.randomNonce();
    const verifier = client.randomPKCECodeVerifier();
    const supported = config.serverMetadata().scopes_supported;
    // A role claim that is a scope of its own (`groups`, `roles` at many providers) comes only when asked for.
    const role = this.settings.roleClaim;
    const scope = [...SCOPES, ...(role !== undefined && supported?.includes(role) ? [role] : [])].join(' ');
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, flow: [state, nonce, verifier].join('.') };
  }

  /**
   * The browser back from the provider: its state checked against the flow's cookie, the code exchanged (with the
   * PKCE verifier), the ID token checked (signature, issuer, audience, nonce); the claims, or why not.
   */
  async finish(query: URLSearchParams, flow: string | undefined): Promise<{ claims: Claims } | Refusal> {
    const [state, nonce, verifier] = (flow ?? '').split('.');
    const again = 'start the sign-in again.';
    if (state === undefined || nonce === undefined || verifier === undefined)
      return refusal(
        'no sign-in was started in this browser',
        `The sign-in took too long or was not started here: ${again}`,
        400,
      );
    if (!sameText(query.get('state') ?? '', state))
      return refusal('the state differs', `The sign-in came back with the answer to another: ${again}`, 400);
    const config = await this.configuration();
    if (typeof config === 'string') return unreachable(config);
    const current = new URL(this.settings.redirectUri);
    current.search = query.toString();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        expectedState: state,
        expectedNonce: nonce,
        pkceCodeVerifier: verifier,
      });
    } catch (error) {
      if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) {
        const code = /^[a-z_]{1,40}$/.test(error.error) ? error.error : 'an error';
        return refusal(
          `the provider answered ${code}`,
          `Your company account did not sign you in (${code}): ${again}`,
          403,
        );
      }
      const cut = unreachableBecause(error);
      if (cut !== undefined) return unreachable(cut);
      return refusal(
        `its answer did not check (${problemOf(error)})`,
        `The sign-in's answer did not check: ${again}`,
        400,
      );
    }
    const claims: Claims = { ...tokens.claims() };
    const wanted = ['email', 'email_verified', 'name', ...(this.settings.roleClaim ? [this.settings.roleClaim] : [])];
    // Some providers put the e-mail, name or roles in the ID token only when asked one by one; userinfo has them (the
    // library checks it is of the ID token's subject). The ID token's word wins where both have a claim.
    if (wanted.some((name) => claims[name] === undefined) && config.serverMetadata().userinfo_endpoint) {
      try {
        return {
          claims: { ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))), ...claims },
        };
      } catch (error) {
        return unreachable(problemOf(error));
      }
    }
    return { claims };
  }

  /** The provider's configuration, found once; or why it cannot be now (looked for again at most every 10 s). */
  private async configuration(): Promise<client.Configuration | string> {
    if (this.config !== undefined) return this.config;
    if (this.missed !== undefined && this.now() - this.missed.at < LOOK_AGAIN_MS) return this.missed.problem;
    const { issuer, clientId, clientSecret } = this.settings;
    try {
      this.config = await client.discovery(issuer, clientId, clientSecret, client.ClientSecretBasic(clientSecret), {
        timeout: 10,
        // http only reaches here for a provider on this machine (the options refuse any other).
        execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
      });
      if (this.missed) this.say(`serve: the identity provider ${issuer.href} answers now: sign-in with it is on`);
      return this.config;
    } catch (error) {
      this.missed = { at: this.now(), problem: problemOf(error) };
      return this.missed.problem;
    }
  }
}

export interface OidcSpec {
  oidc: OidcSignIn;
  auth: WebAuth;
  audit: Audit;
  controls: ControlTables;
  /** Signs the browser in: sets its session's and device's cookies. */
  signedIn: (reply: FastifyReply, opened: { token: string; session: Session; device: string }) => FastifyReply;
}

/**
 * The two legs of the flow, outside the signed-in pages: `/login/oidc` sends the browser to the provider,
 * `/login/oidc/callback` takes it back and signs the user in. Both are GETs: the provider sends the browser back
 * with a redirect.
 */
export function oidcRoutes(app: FastifyInstance, spec: OidcSpec): void {
  app.get(FLOW_PATH, async (request, reply) => {
    const begun = await spec.oidc.begin();
    if ('problem' in begun) return signInPage(spec, reply, 503, UNREACHABLE);
    return reply.setCookie(FLOW_COOKIE, begun.flow, flowCookie(request, FLOW_SECONDS)).redirect(begun.url, 303);
  });
  app.get(OIDC_CALLBACK_PATH, async (request, reply) => {
    const address = clientKey(request.ip);
    reply.setCookie(FLOW_COOKIE, '', flowCookie(request, 0));
    // Counted apart from wrong passwords: a colleague who cancels at the provider does not slow the office's passwords.
    const keys: Array<['address', string]> = [['address', `oidc-address:${address}`]];
    const wait = await spec.oidc.throttle.count(keys);
    if (wait > 0)
      return signInPage(
        spec,
        reply,
        429,
        `Too many sign-ins that did not come through: try again in ${Math.ceil(wait / 1000)} s.`,
      );
    const { searchParams } = new URL(request.url, 'http://callback');
    const done = await spec.oidc.finish(searchParams, request.cookies[FLOW_COOKIE]);
    const account = 'claims' in done ? await accountOf(spec, done.claims, address) : done;
    if (!('viewer' in account)) {
      const who = account.user?.name ?? account.who ?? '(unknown)';
      await spec.audit.record({ who, address }, 'sign-in refused', account.user?.id ?? '', {
        how: 'oidc',
        why: account.why,
        ...(account.email === undefined ? {} : { email: maskedEmail(account.email) }),
      });
      return signInPage(spec, reply, account.status, account.message);
    }
    const { viewer } = account;
    await spec.oidc.throttle.succeeded(keys);
    const opened = await spec.auth.open(viewer);
    await spec.audit.record({ who: viewer.name, address }, 'sign-in', viewer.userId ?? '', {
      role: viewer.role,
      how: 'oidc',
    });
    // Not a redirect: the browser comes from the provider's site, and would leave the session's SameSite=Strict cookie
    // behind on a redirect from there; a page of this site that moves on takes it along.
    return spec
      .signedIn(reply, opened)
      .type('text/html')
      .send(
        layout(
          'Signed in',
          html`<meta http-equiv="refresh" content="0; url=/"><h1>Signed in</h1><p><a href="/">Go on to the page</a></p>`,
        ),
      );
  });
}

/**
 * Who the claims sign in: the user with that verified e-mail, given the role the role claim names when it names
 * one; a user no admin added is added when the claim names a role, and refused otherwise.
 */
async function accountOf(spec: OidcSpec, claims: Claims, address: string): Promise<{ viewer: Viewer } | Refusal> {
  const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.trim() : undefined;
  if (email === undefined)
    return refusal('no e-mail address', 'Your company account gives no e-mail address: ask whoever runs it.', 403);
  if (claims.email_verified !== true)
    return {
      ...refusal(
        'the e-mail address is not verified',
        'Your company account says your e-mail address is not verified: ask whoever runs it to verify it, then try again.',
        403,
      ),
      email,
    };
  const role =
    spec.oidc.settings.roleClaim === undefined ? undefined : claimedRole(claims[spec.oidc.settings.roleClaim]);
  const actor: Actor = { who: OIDC_WHO, address };
  let user = await spec.controls.user({ email });
  if (user === undefined && role !== undefined) user = await added(spec, actor, claims, email, role);
  if (user === undefined)
    return {
      ...refusal('no such user', 'You are not a user here yet: ask an admin to add you.', 403),
      email,
      who: '(no such user)',
    };
  if (user.disabledAt !== undefined)
    return { ...refusal('the user is disabled', 'Your user here is disabled: ask an admin.', 403), user, email };
  // The provider's word on the role is the newer: an admin who moves someone between groups there moves them here.
  if (role !== undefined && role !== user.role)
    user = await changeUser(spec.controls, spec.audit, actor, user, { role });
  return { viewer: { userId: user.id, name: user.name, role: user.role } };
}

/** A user the role claim lets in, added under the name the provider gives, else their e-mail address. */
async function added(spec: OidcSpec, actor: Actor, claims: Claims, email: string, role: Role) {
  const names = [claims.name, email].filter((name): name is string => typeof name === 'string' && name.trim() !== '');
  for (const name of names) {
    const made = await addUser(spec.controls, spec.audit, actor, { name, role, email });
    if ('user' in made) return made.user;
    // The same person's first sign-in in another tab may have added them meanwhile; else the name is someone else's.
    const meanwhile = await spec.controls.user({ email });
    if (meanwhile !== undefined) return meanwhile;
  }
  return undefined;
}

/** The role a claim's value names (a string or a list of them): the highest when it names several. */
export function claimedRole(value: unknown): Role | undefined {
  const named = (Array.isArray(value) ? value : [value])
    .map((item) => (typeof item === 'string' ? item.trim().toLowerCase() : undefined))
    .filter(isRole);
  return named.length === 0 ? undefined : ROLES[Math.max(...named.map((role) => ROLES.indexOf(role)))];
}

/** An e-mail address as the audit trail keeps it: its domain only. */
export function maskedEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? '***' : `***${email.slice(at)}`;
}

function refusal(why: string, message: string, status: number): Refusal {
  return { why, message, status };
}

function unreachable(problem: string): Refusal {
  return refusal(`the provider could not be reached (${problem})`, UNREACHABLE, 502);
}

/** What went wrong in a word or two: why the provider was not reached, or the library's message (no secret in any). */
function problemOf(error: unknown): string {
  return unreachableBecause(error) ?? (error as Error).message;
}

/** Why the provider could not be reached, when that is what went wrong: the network's code, or a timeout. */
function unreachableBecause(error: unknown): string | undefined {
  const { code, cause } = error as { code?: unknown; cause?: { code?: unknown; message?: unknown } };
  if (code === 'OAUTH_TIMEOUT') return 'no answer within 10 s';
  if (!(error instanceof TypeError)) return undefined;
  // fetch's own failure, said by its cause: ECONNREFUSED, ENOTFOUND, a port fetch will not use.
  for (const why of [cause?.code, cause?.message]) if (typeof why === 'string') return why;
  return error.message;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function signInPage(spec: OidcSpec, reply: FastifyReply, status: number, problem: string) {
  return reply
    .code(status)
    .type('text/html')
    .send(layout('Sign in', loginPage(await spec.auth.sharedOpen(), problem, true)));
}

/** The flow's cookie: only the two legs read it, only over TLS when the page came over it. */
function flowCookie(request: FastifyRequest, maxAge: number) {
  return { path: FLOW_PATH, httpOnly: true, sameSite: 'lax' as const, maxAge, secure: request.protocol === 'https' };
}
