import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkTokenHash } from '../store/SqlDirectory.js';
import type { JournalTables, PayerDirectoryTables, PayerLink } from '../store/Store.js';

// The payer's page has no sign-in: the personal link is the key. Its token is exchanged at once for a cookie that
// names the link by the hash the store keeps, signed with a secret of the store's settings, so that the cookie cannot
// be made up and the token leaves the address bar; every request then finds the link again, so a link revoked or
// expired ends the page at once. Guesses of tokens are slowed per client address.

/** Where the secret that signs the cookies and forms is kept: the journal's settings, shared by every serve. */
const SECRET_SETTING = 'payer page secret';
/** A token as issueLink makes them: 32 random bytes, base64url. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const HASH_SHAPE = /^[0-9a-f]{64}$/;
/** How often a cookie that does not verify may make the secret be read again (another serve may have written it). */
const REREAD_MS = 10_000;

/** How many tokens or cookies that are no one's one client may try in a window, and how long it is held back after. */
export interface GuessLimits {
  most: number;
  windowMs: number;
  holdMs: number;
}

const GUESS_LIMITS: GuessLimits = { most: 10, windowMs: 60_000, holdMs: 10 * 60_000 };

/** What opening a personal link gives: the cookie to set (for `maxAge` seconds), or nothing (not valid, or held). */
export type Opened = { link: PayerLink; cookie: string; maxAge: number } | 'not-valid' | { heldMs: number };

export class PayerAccess {
  private lastRead: number;
  private readonly guesses: GuessCount;

  private constructor(
    private secret: Buffer,
    private readonly settings: JournalTables,
    private readonly directory: PayerDirectoryTables,
    private readonly now: () => number,
    limits: GuessLimits,
  ) {
    this.lastRead = now();
    this.guesses = new GuessCount(limits, now);
  }

  /** The secret from the store's settings, made there the first time. */
  static async open(
    settings: JournalTables,
    directory: PayerDirectoryTables,
    now: () => number = Date.now,
    limits: GuessLimits = GUESS_LIMITS,
  ): Promise<PayerAccess> {
    let secret = await settings.setting(SECRET_SETTING);
    if (secret === undefined) {
      await settings.write([{ setting: SECRET_SETTING, value: randomBytes(32).toString('hex') }]);
      // Two serves starting together over one database: the one written last is the one both go on with.
      secret = (await settings.setting(SECRET_SETTING))!;
    }
    return new PayerAccess(Buffer.from(secret, 'hex'), settings, directory, now, limits);
  }

  /** How long the client is held back after too many guesses (0: not held). */
  heldFor(client: string): number {
    return this.guesses.heldFor(client);
  }

  /** A personal link's token exchanged for the cookie of its page; its first opening noted. */
  async open(token: string, client: string): Promise<Opened> {
    const held = this.guesses.heldFor(client);
    if (held > 0) return { heldMs: held };
    const link = TOKEN_SHAPE.test(token) ? await this.directory.link(linkTokenHash(token)) : undefined;
    if (link === undefined) {
      this.guesses.miss(client);
      return 'not-valid';
    }
    if (!this.usable(link)) return 'not-valid';
    await this.directory.openedLink(link.tokenHash, new Date(this.now()).toISOString());
    const cookie = `${link.tokenHash}.${this.mac('cookie', link.tokenHash, link.clientUserId)}`;
    const maxAge = Math.max(1, Math.floor((Date.parse(link.expiresAt) - this.now()) / 1000));
    return { link, cookie, maxAge };
  }

  /**
   * The link a cookie stands for, while it is valid: a cookie that is no one's (made up, or of a link erased) counts
   * as a guess.
   */
  async linkOf(cookie: string | undefined, client: string): Promise<PayerLink | undefined | { heldMs: number }> {
    if (cookie === undefined) return undefined;
    const held = this.guesses.heldFor(client);
    if (held > 0) return { heldMs: held };
    const [hash = '', mac = ''] = cookie.split('.');
    const link = HASH_SHAPE.test(hash) ? await this.directory.link(hash) : undefined;
    if (link === undefined || !(await this.verified(mac, 'cookie', link.tokenHash, link.clientUserId))) {
      this.guesses.miss(client);
      return undefined;
    }
    return this.usable(link) ? link : undefined;
  }

  /** Whether the link is still valid now (a live page goes on only while it is). */
  async stillValid(link: PayerLink): Promise<boolean> {
    const now = await this.directory.link(link.tokenHash);
    return now !== undefined && this.usable(now);
  }

  /** A new form token of the link's page: a nonce of its own, signed with the link (no store needed to check it). */
  csrf(link: PayerLink): string {
    const nonce = randomBytes(12).toString('base64url');
    return `${nonce}.${this.mac('csrf', link.tokenHash, nonce)}`;
  }

  csrfValid(link: PayerLink, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const [nonce = '', mac = ''] = given.split('.');
    return nonce !== '' && equal(mac, this.mac('csrf', link.tokenHash, nonce));
  }

  private usable(link: PayerLink): boolean {
    return link.revokedAt === undefined && Date.parse(link.expiresAt) > this.now();
  }

  private mac(purpose: string, ...parts: string[]): string {
    return createHmac('sha256', this.secret)
      .update([purpose, ...parts].join('\n'))
      .digest('base64url');
  }

  /** Whether the mac is right; when not, the secret is read again (at most every few seconds) and tried once more. */
  private async verified(mac: string, purpose: string, ...parts: string[]): Promise<boolean> {
    if (equal(mac, this.mac(purpose, ...parts))) return true;
    if (this.now() - this.lastRead < REREAD_MS) return false;
    this.lastRead = this.now();
    const stored = await this.settings.setting(SECRET_SETTING);
    if (stored === undefined || stored === this.secret.toString('hex')) return false;
    this.secret = Buffer.from(stored, 'hex');
    return equal(mac, this.mac(purpose, ...parts));
  }
}

function equal(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Tokens and cookies that are no one's, per client address (as clientKey counts them): past `most` in a window, the
 * client is held back for `holdMs`. A token has 256 random bits, so this only keeps a guesser from costing the store.
 */
class GuessCount {
  private readonly clients = new Map<string, { since: number; misses: number; heldUntil: number }>();

  constructor(
    private readonly limits: GuessLimits,
    private readonly now: () => number,
  ) {}

  heldFor(client: string): number {
    return Math.max(0, (this.clients.get(client)?.heldUntil ?? 0) - this.now());
  }

  miss(client: string): void {
    const at = this.now();
    if (this.clients.size >= 10_000) this.sweep(at);
    const count = this.clients.get(client);
    const current = count !== undefined && at - count.since < this.limits.windowMs ? count : undefined;
    const next = current ?? { since: at, misses: 0, heldUntil: count?.heldUntil ?? 0 };
    next.misses += 1;
    if (next.misses >= this.limits.most) next.heldUntil = at + this.limits.holdMs;
    this.clients.set(client, next);
  }

  /** Clients neither counting nor held forgotten: memory stays bounded whatever a crowd of addresses sends. */
  private sweep(at: number): void {
    for (const [client, count] of this.clients)
      if (at - count.since >= this.limits.windowMs && count.heldUntil <= at) this.clients.delete(client);
  }
}
