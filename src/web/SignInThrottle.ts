import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ControlTables, JournalTables } from '../store/Store.js';

/** Wrong tries each thing takes before each next one waits: an office's address is many people's, so more. */
const FREE = { account: 5, address: 20, device: 5 } as const;
/** The longest wait between two tries once they are slowed. */
const LONGEST_WAIT_MS = 15 * 60_000;
/** A count with no try for this long is forgotten. */
const FORGOTTEN_AFTER_MS = 24 * 3_600_000;
/** The counts kept at most: past this, the oldest addresses' go (100,000 addresses stay well within it). */
const KEPT_COUNTS = 200_000;
/** How often the old counts are pruned, at a try. */
const PRUNE_EVERY_MS = 60_000;
/** How long a browser that signed in is known by its device cookie. */
export const DEVICE_DAYS = 180;

type Kind = keyof typeof FREE;

/** The wait after `failures` wrong tries of a thing that takes `free` of them: none, then 1 s doubling up to 15 min. */
function waitAfter(free: number): (failures: number) => number {
  return (failures) => (failures < free ? 0 : Math.min(LONGEST_WAIT_MS, 1000 * 2 ** Math.min(30, failures - free)));
}

/**
 * Slows wrong sign-in tries before any password is read (OWASP's pattern for blocking brute force without locking
 * people out). A try from a browser that signed in as that user before (its device cookie, signed by serve) counts
 * against that device only: one guesser behind the office's address, or guessing at a colleague's name, does not
 * slow the colleague at the next desk. Any other try counts against the account and the address at once. Counts live
 * in the store, so two serve share them and a restart forgets nothing; each is counted in one statement, so tries
 * sent together each see the ones before.
 */
export class SignInThrottle {
  private prunedAt = 0;

  private constructor(
    private readonly tables: ControlTables,
    private readonly secret: Buffer,
    private readonly now: () => number,
  ) {}

  /** The throttle of a service and key; the secret its device cookies are signed with is made once, in the store. */
  static async open(tables: ControlTables, settings: JournalTables, now: () => number): Promise<SignInThrottle> {
    let secret = await settings.setting('web device secret');
    if (secret === undefined) {
      await settings.write([{ setting: 'web device secret', value: randomBytes(32).toString('hex') }]);
      // Another serve may have written its own at the same moment: the one kept is the one both use.
      secret = (await settings.setting('web device secret'))!;
    }
    return new SignInThrottle(tables, Buffer.from(secret, 'hex'), now);
  }

  /**
   * What a try is counted against: its device, when its cookie was given to this name; else the account and the
   * client's address.
   */
  keysOf(nameKey: string, address: string, device: string | undefined): Array<[Kind, string]> {
    const nonce = this.deviceNonce(device, nameKey);
    if (nonce !== undefined) return [['device', `device:${nonce}`]];
    return [
      ['account', `account:${nameKey}`],
      ['address', `address:${address}`],
    ];
  }

  /**
   * Counts a try before its password is read: the milliseconds it must wait instead (and it is not read), or 0. A try
   * that passes is a failure until `succeeded` says otherwise.
   */
  async count(keys: ReadonlyArray<[Kind, string]>): Promise<number> {
    const at = this.now();
    await this.prune(at);
    const before = await this.tables.tries(keys.map(([, key]) => key));
    const waiting = Math.max(0, ...[...before.values()].map((t) => t.nextTryAt - at));
    if (waiting > 0) return waiting;
    for (const [kind, key] of keys) {
      const counted = (await this.tables.countTry([key], at, waitAfter(FREE[kind]))).get(key);
      // Another try made it wait meanwhile: this one is refused unread, and counts no further.
      if (counted?.counted === false) return Math.max(counted.nextTryAt - at, 1);
    }
    return 0;
  }

  /**
   * The right password: the account's or the device's count starts again. An address's only takes this try back: a
   * guesser's own success (or a colleague's) must not free the guesses it has used up at other names.
   */
  async succeeded(keys: ReadonlyArray<[Kind, string]>): Promise<void> {
    await this.tables.clearTries(keys.filter(([kind]) => kind !== 'address').map(([, key]) => key));
    await this.notAGuess(keys.filter(([kind]) => kind === 'address'));
  }

  /** A try that was right but signs in no one (a password retired): this try taken back, nothing more. */
  async notAGuess(keys: ReadonlyArray<[Kind, string]>): Promise<void> {
    for (const [kind, key] of keys) await this.tables.uncountTry([key], waitAfter(FREE[kind]));
  }

  /** A new device cookie's value for a browser that just signed in with this name. */
  deviceCookie(nameKey: string): string {
    const nonce = randomBytes(16).toString('base64url');
    const name = Buffer.from(nameKey).toString('base64url');
    return `${name}.${nonce}.${this.sign(nameKey, nonce)}`;
  }

  /** The nonce of a device cookie, when serve signed it for this name. */
  private deviceNonce(cookie: string | undefined, nameKey: string): string | undefined {
    const [name, nonce, signature, ...rest] = (cookie ?? '').split('.');
    if (name === undefined || nonce === undefined || signature === undefined || rest.length > 0) return undefined;
    if (Buffer.from(name, 'base64url').toString() !== nameKey) return undefined;
    const expected = Buffer.from(this.sign(nameKey, nonce));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : undefined;
  }

  private sign(nameKey: string, nonce: string): string {
    return createHmac('sha256', this.secret).update(`${nameKey}\n${nonce}`).digest('base64url');
  }

  /** Forgets old counts, at most once a minute: what a spray of addresses leaves behind stays bounded. */
  private async prune(at: number): Promise<void> {
    if (at - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = at;
    await this.tables.pruneTries(at - FORGOTTEN_AFTER_MS, KEPT_COUNTS);
  }
}
