import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { FastifyRequest } from 'fastify';

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

/**
 * Who may use the web page: one password set by the operator, kept only as a scrypt hash with a salt of this process,
 * and the sessions of those who gave it (in memory: a restart signs everyone out). Wrong tries slow the next ones, for
 * every client alike, so that guessing from many addresses is as slow as from one.
 */
export class WebAuth {
  private readonly sessions = new Map<string, Session>();
  private failures = 0;
  private nextTryAt = 0;
  private lastTry: Promise<void> = Promise.resolve();

  private constructor(
    private readonly salt: Buffer,
    private readonly hash: Buffer,
    private readonly now: () => number,
  ) {}

  static async create(password: string, now: () => number = Date.now): Promise<WebAuth> {
    const salt = randomBytes(16);
    return new WebAuth(salt, await scryptAsync(password, salt, 32), now);
  }

  /**
   * Checks a password; a new session when right. A try that comes before the wait after wrong ones is refused unread
   * (`wait`, with the milliseconds left), so a guesser gains nothing by not waiting.
   */
  signIn(password: string): Promise<{ token: string; session: Session } | { wait: number } | 'wrong'> {
    // One try at a time: tries sent together would all pass the wait before the first had failed.
    const attempt = this.lastTry.then(() => this.tryPassword(password));
    this.lastTry = attempt.then(
      () => undefined,
      () => undefined,
    );
    return attempt;
  }

  private async tryPassword(
    password: string,
  ): Promise<{ token: string; session: Session } | { wait: number } | 'wrong'> {
    const wait = this.nextTryAt - this.now();
    if (wait > 0) return { wait };
    const given = await scryptAsync(password, this.salt, 32);
    if (!timingSafeEqual(given, this.hash)) {
      this.failures += 1;
      if (this.failures >= FREE_TRIES)
        this.nextTryAt = this.now() + Math.min(60_000, 1000 * 2 ** (this.failures - FREE_TRIES));
      return 'wrong';
    }
    this.failures = 0;
    this.nextTryAt = 0;
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    const session = { csrf: randomBytes(24).toString('base64url'), endsAt: at + LONGEST_MS, seenAt: at };
    this.sessions.set(token, session);
    return { token, session };
  }

  /** The session of a token, when it is one and has not ended; its idle clock starts again. */
  session(token: string | undefined): Session | undefined {
    if (token === undefined) return undefined;
    const session = this.sessions.get(token);
    if (session === undefined) return undefined;
    const at = this.now();
    if (at > session.endsAt || at - session.seenAt > IDLE_MS) {
      this.sessions.delete(token);
      return undefined;
    }
    session.seenAt = at;
    return session;
  }

  signOut(token: string | undefined): void {
    if (token !== undefined) this.sessions.delete(token);
  }

  /** Whether a form's or a call's token is the session's own, compared in constant time. */
  static csrfValid(session: Session, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const a = Buffer.from(given);
    const b = Buffer.from(session.csrf);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
