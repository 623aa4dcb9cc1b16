import { createHash } from 'node:crypto';
import type pg from 'pg';
import { AbortedError } from '../core/errors.js';

/** How long a hold lasts on a shared server unless renewed: another process may take it this long after a stop. */
const LEASE_MS = 10_000;
/** How often the holder renews it: a few renewals may fail (a slow network) before it runs out. */
const RENEW_MS = 2_000;
/**
 * Taken off the lease's end on this side: it is counted from when the renewal was sent, and the server's clock
 * and this one may run at slightly different rates in between.
 */
const MARGIN_MS = 1_000;

/** The server's clock in milliseconds: one clock for every machine that shares the database. */
const NOW_MS = '(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT';

/**
 * Takes the service and key if nobody holds it: never held, released, its lease ran out (a holder stopped, hung or
 * cut off), or its holder's connection is gone (a holder killed: taken at once, not after the lease). Each taking
 * counts the token up. Two takers at once: the second sees the first's fresh lease and gets no row.
 */
const TAKE = `
  INSERT INTO service_holders AS h (service, holder, token, lease_until, backend)
  VALUES ($1, $2, 1, ${NOW_MS} + $3, pg_backend_pid())
  ON CONFLICT (service) DO UPDATE
    SET holder = excluded.holder, token = h.token + 1, lease_until = excluded.lease_until, backend = excluded.backend
    WHERE h.lease_until < ${NOW_MS} OR h.backend IS NULL
      OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = h.backend)
  RETURNING token`;
const RENEW = `UPDATE service_holders SET lease_until = ${NOW_MS} + $3 WHERE service = $1 AND token = $2`;
const GIVE_UP = 'UPDATE service_holders SET lease_until = 0, backend = NULL WHERE service = $1 AND token = $2';
const WHO = `SELECT holder, GREATEST(lease_until - ${NOW_MS}, 0) AS left_ms FROM service_holders WHERE service = $1`;

/**
 * The session lock an earlier version held a service and key by (until this one, the hold itself): a run of that
 * version still going when this one first starts is found by it, and waited for.
 */
const EARLIER_HOLD = `SELECT pg_try_advisory_lock($1) AS free`;
const EARLIER_FREE = 'SELECT pg_advisory_unlock($1)';
/** PostgreSQL's code for a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * A lease on a service and key in a shared database, held on a connection of its own and renewed until released.
 * It is lost when a renewal finds another holder's token, or when it ran out on this side (renewals that got no
 * answer: the network, a stopped process); the listeners are told once, and every fenced write fails from then on.
 */
export class Lease {
  private validUntil: number;
  private lostWhy: string | undefined;
  private released = false;
  private readonly listeners: Array<(why: string) => void> = [];
  private readonly renewing: NodeJS.Timeout;
  private deadline: NodeJS.Timeout | undefined;

  private constructor(
    private readonly client: pg.PoolClient,
    readonly service: string,
    readonly token: string,
    sentAt: number,
    /** The lease's words for a message: what is held, and where. */
    private readonly what: string,
  ) {
    this.validUntil = sentAt + LEASE_MS - MARGIN_MS;
    this.armDeadline();
    this.renewing = setInterval(() => this.renew(), RENEW_MS);
    this.renewing.unref();
  }

  /** The lease, or who holds it and for how much longer at most (undefined: taken). */
  static async take(
    client: pg.PoolClient,
    service: string,
    holder: string,
    what: string,
  ): Promise<Lease | { holder: string; leftMs?: number } | undefined> {
    const earlier = earlierKey(service);
    if ((await client.query(EARLIER_HOLD, [earlier])).rows[0]?.free !== true) {
      const found = await client.query(WHO, [service]);
      return found.rows[0] ? { holder: String(found.rows[0].holder) } : undefined;
    }
    await client.query(EARLIER_FREE, [earlier]);
    const sentAt = performance.now();
    // A holder's transaction keeps its row a moment (see fence): waited for, but not for ever.
    await client.query('BEGIN');
    let token: unknown;
    try {
      await client.query("SET LOCAL lock_timeout = '5s'");
      token = (await client.query(TAKE, [service, holder, LEASE_MS])).rows[0]?.token;
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      // Its row still locked after that: the holder is in the middle of a write, or stopped there (the server ends
      // such a session after a while), so it holds it for now.
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
    }
    if (token !== undefined) return new Lease(client, service, String(token), sentAt, what);
    const found = await client.query(WHO, [service]);
    const row = found.rows[0];
    return row ? { holder: String(row.holder), leftMs: Number(row.left_ms) } : undefined;
  }

  /**
   * The last statement of a transaction written under the lease: its token read and its row kept until the commit (a
   * taker waits that moment), so the writes land only while the lease is this one's. Throws when it is not.
   */
  async fence(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query('SELECT token FROM service_holders WHERE service = $1 FOR SHARE', [
      this.service,
    ]);
    if (String(rows[0]?.token) !== this.token) this.lose('another process took it over');
    if (!this.valid()) throw this.lostError();
  }

  /** Still held, as far as this side can tell: not released, not lost, and renewed recently enough. */
  valid(): boolean {
    if (this.lostWhy === undefined && performance.now() >= this.validUntil) this.lose('its lease ran out unrenewed');
    return this.lostWhy === undefined && !this.released;
  }

  /** Whether it was lost (rather than released): its connection then goes, renewals queued on it with it. */
  get lost(): boolean {
    return this.lostWhy !== undefined;
  }

  /** Why it is not held any more, as a stop says it. */
  lostError(): AbortedError {
    return new AbortedError(
      `the hold of ${this.what} was lost (${this.lostWhy ?? 'released'}): nothing more is written or sent, since another process may hold it now`,
    );
  }

  /** Tells the listener once if the lease is lost; the function returned stops that (a run of a pass that ended). */
  onLost(listener: (why: string) => void): () => void {
    if (this.lostWhy !== undefined) {
      listener(this.lostWhy);
      return () => undefined;
    }
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at !== -1) this.listeners.splice(at, 1);
    };
  }

  /** Told by the connection: it ended or failed, so the lease is no longer renewed. */
  lose(why: string): void {
    if (this.released || this.lostWhy !== undefined) return;
    this.lostWhy = why;
    clearInterval(this.renewing);
    clearTimeout(this.deadline);
    for (const listener of this.listeners.splice(0)) listener(`the hold of ${this.what} was lost (${why})`);
  }

  /** Gives the lease back (another process may take it at once); the connection goes back to the caller. */
  async release(): Promise<void> {
    const held = this.lostWhy === undefined;
    this.released = true;
    clearInterval(this.renewing);
    clearTimeout(this.deadline);
    if (held) await this.client.query(GIVE_UP, [this.service, this.token]);
  }

  private renew(): void {
    const sentAt = performance.now();
    this.client.query(RENEW, [this.service, this.token, LEASE_MS]).then(
      (answer) => {
        if (this.released || this.lostWhy !== undefined) return;
        if (answer.rowCount === 0) return this.lose('another process took it over');
        // Renewed: unless a stop since then, it lasts from when the renewal was sent.
        if (this.valid()) {
          this.validUntil = Math.max(this.validUntil, sentAt + LEASE_MS - MARGIN_MS);
          this.armDeadline();
        }
      },
      // One renewal that fails is not the end: the deadline says when it is.
      () => undefined,
    );
  }

  /** Lost on this side once the lease ran out, even with no write to notice it (a run waiting on the API). */
  private armDeadline(): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.valid(), Math.max(0, this.validUntil - performance.now()));
    this.deadline.unref();
  }
}

/** The key an earlier version's session lock of the service and key had. */
function earlierKey(service: string): string {
  return BigInt(`0x${createHash('sha256').update(`payer-onboard: ${service}`).digest('hex').slice(0, 15)}`).toString();
}
