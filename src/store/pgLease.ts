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
  ): Promise<Lease | { holder: string; leftMs: number } | undefined> {
    const sentAt = performance.now();
    const taken = await client.query(TAKE, [service, holder, LEASE_MS]);
    const token = taken.rows[0]?.token;
    if (token !== undefined) return new Lease(client, service, String(token), sentAt, what);
    const found = await client.query(WHO, [service]);
    const row = found.rows[0];
    return row ? { holder: String(row.holder), leftMs: Number(row.left_ms) } : undefined;
  }

  /** Still held, as far as this side can tell: not lost, and renewed recently enough. */
  valid(): boolean {
    if (this.lostWhy === undefined && performance.now() >= this.validUntil) this.lose('its lease ran out unrenewed');
    return this.lostWhy === undefined;
  }

  /** Why it is not held any more, as a stop says it. */
  lostError(): AbortedError {
    return new AbortedError(
      `the hold of ${this.what} was lost (${this.lostWhy ?? 'released'}): nothing more is written or sent, since another process may hold it now`,
    );
  }

  onLost(listener: (why: string) => void): void {
    if (this.lostWhy !== undefined) listener(this.lostWhy);
    else this.listeners.push(listener);
  }

  /** Told by the connection: it ended or failed, so the lease is no longer renewed. */
  lose(why: string): void {
    if (this.released || this.lostWhy !== undefined) return;
    this.lostWhy = why;
    clearInterval(this.renewing);
    clearTimeout(this.deadline);
    for (const listener of this.listeners) listener(`the hold of ${this.what} was lost (${why})`);
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
