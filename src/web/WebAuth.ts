import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { FastifyRequest } from 'fastify';
import type { ControlTables, JournalTables, Role, WebTables } from '../store/Store.js';
import type { Audit } from './Audit.js';
import { SignInThrottle } from './SignInThrottle.js';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** A request of a signed-in person, with the session it came with (for the routes behind sign-in). */
export type SignedIn = FastifyRequest & { session: Session };

/** Who is signed in: a named user, or the shared password's single admin (no id). */
export interface Viewer {
  userId?: string;
  name: string;
  role: Role;
}

/** A signed-in person's session: who, its CSRF token and when it ends. */
export interface Session {
  user: Viewer;
  csrf: string;
  /** Epoch ms after which it is over, whatever happens. */
  endsAt: number;
  /** Epoch ms of the last request; idle past IDLE_MS, it is over. */
  seenAt: number;
}

/** A sign-in's outcome: a session and the browser's new device cookie, or why not. */
export type SignInResult =
  | { token: string; session: Session; device: string }
  | { wait: number }
  | 'wrong'
  /** The shared password, once the team has named users. */
  | 'shared-retired';

/** A session ends after this long without a request... */
const IDLE_MS = 30 * 60_000;
/** ...and after this long in any case. */
export const LONGEST_MS = 12 * 3_600_000;
/** How often a session's last use is written to the store: the idle clock needs no finer grain. */
const SEEN_WRITE_MS = 60_000;

/** The shortest password the page takes: it guards personal data and the team's key. */
export const MIN_PASSWORD = 12;

/** The name the shared password's sessions and audit lines go by. */
export const SHARED_NAME = 'shared password';

/**
 * Who may use the web page: named users, each with a password of their own (kept as a scrypt hash with a salt of its
 * own) or signed in by the company's identity provider, and, until the first of them exists, the one password the
 * operator set (the single admin of a team of one). Sessions live in the store by a hash of their token and are read
 * from it at each request, so that two serve share them, a restart signs nobody out, and signing out or a user
 * disabled ends them everywhere at once. Wrong tries are slowed before any password is read (SignInThrottle).
 */
export class WebAuth {
  private constructor(
    private readonly web: WebTables,
    private readonly controls: ControlTables,
    private readonly throttle: SignInThrottle,
    private readonly audit: Audit,
    /** The shared password's hash and the mark its sessions carry; none when the operator set no password. */
    private readonly shared: { salt: Buffer; hash: Buffer; mark: string } | undefined,
    private readonly now: () => number,
  ) {}

  static async create(options: {
    /** The shared password the operator set, if any. */
    password?: string | undefined;
    web: WebTables;
    controls: ControlTables;
    settings: JournalTables;
    audit: Audit;
    now?: () => number;
  }): Promise<WebAuth> {
    const now = options.now ?? Date.now;
    const throttle = await SignInThrottle.open(options.controls, options.settings, now);
    const shared = options.password === undefined ? undefined : await sharedPassword(options.password, options);
    return new WebAuth(options.web, options.controls, throttle, options.audit, shared, now);
  }

  /** Whether the shared password signs in: it was set, and the team has no named user yet. */
  async sharedOpen(): Promise<boolean> {
    return this.shared !== undefined && (await this.controls.users()).length === 0;
  }

  /**
   * Checks a name and password; a new session when right. A try that comes during a wait after wrong ones is
   * refused unread (`wait`, with the milliseconds left), so a guesser gains nothing by not waiting. With no name, the
   * password is the shared one.
   */
  async signIn(given: { name: string; password: string; address: string; device?: string }): Promise<SignInResult> {
    const name = given.name.trim();
    const nameKey = name.toLowerCase();
    const actor = { who: name === '' ? SHARED_NAME : name, address: given.address };
    const keys = this.throttle.keysOf(nameKey, given.address, given.device);
    const wait = await this.throttle.count(keys);
    if (wait > 0) return { wait };
    const user = name === '' ? undefined : await this.controls.user({ name });
    const usable = user !== undefined && user.disabledAt === undefined ? user : undefined;
    let viewer: Viewer | undefined;
    if (name === '') {
      const right = this.shared !== undefined && (await matches(given.password, this.shared.salt, this.shared.hash));
      if (right && !(await this.sharedOpen())) {
        await this.throttle.notAGuess(keys);
        await this.audit.record(actor, 'sign-in refused', '', { why: 'the shared password is retired' });
        return 'shared-retired';
      }
      if (right) viewer = { name: SHARED_NAME, role: 'admin' };
    } else if (await passwordMatches(given.password, usable?.passwordHash)) {
      viewer = { userId: usable!.id, name: usable!.name, role: usable!.role };
    }
    if (viewer === undefined) {
      // A name that is no user's is not written: it may be a password typed in the wrong box.
      await this.audit.record(user === undefined ? { ...actor, who: '(no such user)' } : actor, 'sign-in refused');
      return 'wrong';
    }
    await this.throttle.succeeded(keys);
    const opened = await this.open(viewer);
    await this.audit.record({ who: viewer.name, address: given.address }, 'sign-in', viewer.userId ?? '', {
      role: viewer.role,
      how: 'password',
    });
    return opened;
  }

  /**
   * A new session, and the browser's new device cookie, for someone whose sign-in was checked (here, by the identity
   * provider, or by a one-time link).
   */
  async open(viewer: Viewer): Promise<{ token: string; session: Session; device: string }> {
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    const session = { user: viewer, csrf: randomBytes(24).toString('base64url'), endsAt: at + LONGEST_MS, seenAt: at };
    await this.web.putSession({
      tokenHash: hashOf(token),
      passwordMark: viewer.userId === undefined ? (this.shared?.mark ?? '') : '',
      ...(viewer.userId === undefined ? {} : { userId: viewer.userId }),
      csrf: session.csrf,
      endsAt: session.endsAt,
      seenAt: session.seenAt,
    });
    const nameKey = viewer.userId === undefined ? '' : viewer.name.toLowerCase();
    return { token, session, device: this.throttle.deviceCookie(nameKey) };
  }

  /** The session of a token, when it is one, has not ended and its user may still sign in; its idle clock restarts. */
  async session(token: string | undefined): Promise<Session | undefined> {
    if (token === undefined) return undefined;
    const tokenHash = hashOf(token);
    const kept = await this.web.session(tokenHash);
    if (kept === undefined) return undefined;
    const at = this.now();
    const viewer = await this.viewerOf(kept.userId, kept.passwordMark);
    if (viewer === undefined || at > kept.endsAt || at - kept.seenAt > IDLE_MS) {
      await this.web.deleteSessions([tokenHash]);
      return undefined;
    }
    if (at - kept.seenAt >= SEEN_WRITE_MS) await this.web.touchSession(tokenHash, at);
    return { user: viewer, csrf: kept.csrf, endsAt: kept.endsAt, seenAt: at };
  }

  /** Who a kept session is of, if they may still be signed in. */
  private async viewerOf(userId: string | undefined, passwordMark: string): Promise<Viewer | undefined> {
    // The shared password's: only while the team has no named user (one added meanwhile, by another serve too, ends it).
    if (userId === undefined)
      return this.shared !== undefined && passwordMark === this.shared.mark && (await this.sharedOpen())
        ? { name: SHARED_NAME, role: 'admin' }
        : undefined;
    const user = await this.controls.user({ id: userId });
    if (user === undefined || user.disabledAt !== undefined) return undefined;
    return { userId: user.id, name: user.name, role: user.role };
  }

  async signOut(token: string | undefined, address: string): Promise<void> {
    if (token === undefined) return;
    const session = await this.session(token);
    await this.web.deleteSessions([hashOf(token)]);
    if (session !== undefined)
      await this.audit.record({ who: session.user.name, address }, 'sign-out', session.user.userId ?? '');
  }

  /** Whether a form's or a call's token is the session's own, compared in constant time. */
  static csrfValid(session: Session, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const a = Buffer.from(given);
    const b = Buffer.from(session.csrf);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** A user's password as kept: `scrypt:SALT:HASH`, hex. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt:${salt.toString('hex')}:${(await scryptAsync(password, salt, 32)).toString('hex')}`;
}

/** A stand-in hash, so that a name that is no user's costs the same time as one that is. */
const NOBODY = `scrypt:${'00'.repeat(16)}:${'00'.repeat(32)}`;

async function passwordMatches(password: string, kept: string | undefined): Promise<boolean> {
  const [kind, salt, hash] = (kept ?? NOBODY).split(':');
  if (kind !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const right = await matches(password, Buffer.from(salt, 'hex'), Buffer.from(hash, 'hex'));
  return right && kept !== undefined;
}

async function matches(password: string, salt: Buffer, hash: Buffer): Promise<boolean> {
  const given = await scryptAsync(password, salt, 32);
  return given.length === hash.length && timingSafeEqual(given, hash);
}

/**
 * The shared password, hashed under a salt of this process, and the mark its sessions carry: a scrypt of it under a
 * salt kept in the store, so that sessions opened with it outlive a restart, and those of another password are not
 * taken.
 */
async function sharedPassword(
  password: string,
  { settings }: { settings: JournalTables },
): Promise<{ salt: Buffer; hash: Buffer; mark: string }> {
  if (password.length < MIN_PASSWORD)
    throw new Error(`the web page's password must be at least ${MIN_PASSWORD} characters`);
  const salt = randomBytes(16);
  let markSalt = await settings.setting('web password salt');
  if (markSalt === undefined) {
    markSalt = randomBytes(16).toString('hex');
    await settings.write([{ setting: 'web password salt', value: markSalt }]);
  }
  const mark = (await scryptAsync(password, Buffer.from(markSalt, 'hex'), 32)).toString('hex');
  return { salt, hash: await scryptAsync(password, salt, 32), mark };
}

/** What the store knows a session or link by: the token is never kept, so reading the store signs nobody in. */
export function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
