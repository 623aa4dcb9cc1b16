import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { FastifyRequest } from 'fastify';
import type { JournalTables, WebTables } from '../store/Store.js';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** A request of a signed-in person, with the session it came with (for the routes behind sign-in). */
export type SignedIn = FastifyRequest & { session: Session };

/** A signed-in person's session: its CSRF token and when it ends. */
export interface Session {
  csrf: string;
  /** Epoch ms after which it is over, whatever happens. */
  endsAt: number;
  /** Epoch ms of the last request; idle past IDLE_MS, it is over. */
  seenAt: number;
}

/** A session ends after this long without a request... */
const IDLE_MS = 30 * 60_000;
/** ...and after this long in any case. */
const LONGEST_MS = 12 * 3_600_000;
/** Wrong passwords allowed before each next try waits; the wait doubles from one second up to a minute. */
const FREE_TRIES = 3;

/** The shortest password the page takes: it guards personal data and the team's key. */
export const MIN_PASSWORD = 12;

/** Wrong tries of one client address: how many since its last success, and when it may try again. */
interface Tries {
  failures: number;
  nextTryAt: number;
}

/** How often a session's last use is written to the store: the idle clock needs no finer grain across a restart. */
const SEEN_WRITE_MS = 60_000;

/**
 * Who may use the web page: one password set by the operator, kept only as a scrypt hash with a salt of this process,
 * and the sessions of those who gave it, kept in the store by a hash of their token, so that a restart of serve signs
 * nobody out (a changed password does: every session ends). Wrong tries slow the next ones of the same client address,
 * so that one guesser cannot lock the team out; tries are checked one at a time.
 */
export class WebAuth {
  /** By the hash of the token. */
  private readonly sessions = new Map<string, Session>();
  /** When each session's last use was last written. */
  private readonly written = new Map<string, number>();
  private readonly tries = new Map<string, Tries>();
  private lastTry: Promise<void> = Promise.resolve();
  /** Which password the sessions kept in the store are opened with: a mark of it (a scrypt under a salt of its own). */
  private passwordMark = '';

  private constructor(
    private readonly salt: Buffer,
    private readonly hash: Buffer,
    private readonly now: () => number,
    private readonly kept: WebTables | undefined,
  ) {}

  /**
   * `kept`: where sessions outlive the process, with the journal's settings that remember which password they were
   * opened with (a scrypt of it, under a salt of its own); without, sessions live in memory only.
   */
  static async create(
    password: string,
    now: () => number = Date.now,
    kept?: { web: WebTables; settings: JournalTables },
  ): Promise<WebAuth> {
    if (password.length < MIN_PASSWORD)
      throw new Error(`the web page's password must be at least ${MIN_PASSWORD} characters`);
    const salt = randomBytes(16);
    const auth = new WebAuth(salt, await scryptAsync(password, salt, 32), now, kept?.web);
    if (kept !== undefined) await auth.restore(password, kept.settings);
    return auth;
  }

  /** The sessions opened with this same password before a restart; none when the password changed since. */
  private async restore(password: string, settings: JournalTables): Promise<void> {
    const web = this.kept!;
    let markSalt = await settings.setting('web password salt');
    if (markSalt === undefined) {
      markSalt = randomBytes(16).toString('hex');
      await settings.write([{ setting: 'web password salt', value: markSalt }]);
    }
    const mark = (await scryptAsync(password, Buffer.from(markSalt, 'hex'), 32)).toString('hex');
    this.passwordMark = mark;
    if ((await settings.setting('web password')) !== mark) {
      await web.deleteSessions();
      await settings.write([{ setting: 'web password', value: mark }]);
      return;
    }
    const at = this.now();
    // Only the sessions opened with this same password: another serve still running with an old one may write its own.
    for (const kept of await web.sessions(mark))
      if (at <= kept.endsAt && at - kept.seenAt <= IDLE_MS)
        this.sessions.set(kept.tokenHash, { csrf: kept.csrf, endsAt: kept.endsAt, seenAt: kept.seenAt });
  }

  /** Writes to the store that may fail (the database away): the session still works until the process ends. */
  private keep(write: (web: WebTables) => Promise<void>): void {
    if (this.kept !== undefined) write(this.kept).catch(() => undefined);
  }

  /**
   * Checks a password; a new session when right. A try that comes before the wait after wrong ones is refused unread
   * (`wait`, with the milliseconds left), so a guesser gains nothing by not waiting.
   */
  signIn(password: string, client = ''): Promise<{ token: string; session: Session } | { wait: number } | 'wrong'> {
    // One try at a time: tries sent together would all pass the wait before the first had failed.
    const attempt = this.lastTry.then(() => this.tryPassword(password, client));
    this.lastTry = attempt.then(
      () => undefined,
      () => undefined,
    );
    return attempt;
  }

  private async tryPassword(
    password: string,
    client: string,
  ): Promise<{ token: string; session: Session } | { wait: number } | 'wrong'> {
    const tries = this.tries.get(client) ?? { failures: 0, nextTryAt: 0 };
    const wait = tries.nextTryAt - this.now();
    if (wait > 0) return { wait };
    const given = await scryptAsync(password, this.salt, 32);
    if (!timingSafeEqual(given, this.hash)) {
      tries.failures += 1;
      if (tries.failures >= FREE_TRIES)
        tries.nextTryAt = this.now() + Math.min(60_000, 1000 * 2 ** (tries.failures - FREE_TRIES));
      this.tries.set(client, tries);
      return 'wrong';
    }
    this.tries.delete(client);
    this.sweep();
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    const session = { csrf: randomBytes(24).toString('base64url'), endsAt: at + LONGEST_MS, seenAt: at };
    const tokenHash = hashOf(token);
    this.sessions.set(tokenHash, session);
    this.written.set(tokenHash, at);
    this.keep((web) => web.putSession({ tokenHash, passwordMark: this.passwordMark, ...session }));
    return { token, session };
  }

  /** The session of a token, when it is one and has not ended; its idle clock starts again. */
  session(token: string | undefined): Session | undefined {
    if (token === undefined) return undefined;
    const tokenHash = hashOf(token);
    const session = this.sessions.get(tokenHash);
    if (session === undefined) return undefined;
    const at = this.now();
    if (at > session.endsAt || at - session.seenAt > IDLE_MS) {
      this.end([tokenHash]);
      return undefined;
    }
    session.seenAt = at;
    if (at - (this.written.get(tokenHash) ?? 0) >= SEEN_WRITE_MS) {
      this.written.set(tokenHash, at);
      this.keep((web) => web.touchSession(tokenHash, at));
    }
    return session;
  }

  signOut(token: string | undefined): void {
    if (token !== undefined) this.end([hashOf(token)]);
  }

  private end(tokenHashes: string[]): void {
    if (tokenHashes.length === 0) return;
    for (const tokenHash of tokenHashes) {
      this.sessions.delete(tokenHash);
      this.written.delete(tokenHash);
    }
    this.keep((web) => web.deleteSessions(tokenHashes));
  }

  /** Sessions over, and clients whose wait is long past, forgotten (at each sign-in: memory stays bounded). */
  private sweep(): void {
    const at = this.now();
    const over = [...this.sessions].filter(([, s]) => at > s.endsAt || at - s.seenAt > IDLE_MS).map(([hash]) => hash);
    this.end(over);
    for (const [client, t] of this.tries) if (at - t.nextTryAt > 3_600_000) this.tries.delete(client);
  }

  /** Whether a form's or a call's token is the session's own, compared in constant time. */
  static csrfValid(session: Session, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const a = Buffer.from(given);
    const b = Buffer.from(session.csrf);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** What the store knows a session by: the cookie's token is never kept, so reading the store signs nobody in. */
function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
