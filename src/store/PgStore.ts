import pg from 'pg';
import { AbortedError, ConfigError, PayerOnboardError } from '../core/errors.js';
import type { Executor, Statement } from './SqlJournal.js';
import { type Holder, holderOf, lockedBy } from './holder.js';
import { Lease } from './pgLease.js';
import { stepsAfter } from './schema.js';
import { GroupCommit } from './GroupCommit.js';
import { BorrowedStore, SqlStore } from './SqlStore.js';
import type { Hold } from './Store.js';

/**
 * The store on a PostgreSQL server, for a team of machines: every run, `status` and `serve` that is given the same
 * database shares one memory. Commits are durable when they return (the server's own fsync); the journal's writes go
 * out one transaction after the other, in the order they were made, on a pool of a few connections.
 */
export class PgStore extends SqlStore {
  /** The writes, one transaction after the other: a later record of a call never lands before an earlier one. */
  private readonly writes = new GroupCommit((statements) => this.transaction(statements));
  /**
   * A connection that broke (the server restarted): said by the next failure, once, rather than left to crash the
   * process; a failure after that one is said in its own words.
   */
  private broken: Error | undefined;
  private readonly noteBroken = (error: Error) => {
    this.broken = error;
  };

  private constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    /** The password as given and as decoded: never in a message. */
    private readonly secrets: readonly string[],
    /** Where the URL came from, as messages name it. */
    private readonly given: string,
  ) {
    super();
  }

  /**
   * Connects, and brings the schema up to this version (once, whoever else starts at the same moment). `given`:
   * where the URL came from, as messages name it.
   */
  static async open(url: string, given = 'PAYER_ONBOARD_DATABASE_URL'): Promise<PgStore> {
    const parsed = parseUrl(url, given);
    const pool = new pg.Pool({
      connectionString: url,
      max: 4,
      connectionTimeoutMillis: 10_000,
      // A server across a network that went away is noticed by the socket too, not only by the hold's heartbeat.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // A query on a connection the network dropped in silence fails instead of waiting for ever.
      query_timeout: 30_000,
      // A holder stopped in the middle of a transaction (SIGSTOP, a hung machine) keeps its rows locked: the server
      // ends such a session after this, so that another can take over.
      idle_in_transaction_session_timeout: 15_000,
      application_name: 'payer-onboard',
    });
    const store = new PgStore(pool, parsed.location, parsed.secrets, given);
    pool.on('error', store.noteBroken);
    try {
      await store.migrate();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw store.storeError(error, 'cannot be opened');
    }
    return store;
  }

  /**
   * A lease in the database, on a connection kept for the hold, renewed every few seconds: every machine that shares
   * the database sees it. A holder killed frees it at once (its connection ends); one stopped, hung or cut off frees
   * it when its lease runs out, within seconds. The hold's store checks the lease's token on every transaction, and
   * the listeners are told when it is lost: the run stops before another can take over, and writes nothing after.
   */
  async hold(service: string, holder: Holder, using: string): Promise<Hold> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.storeError(error, 'cannot be reached');
    }
    let lease: Lease | undefined;
    const onError = (error: Error) => lease?.lose(this.scrub(error.message));
    const onEnd = () => lease?.lose('its connection ended');
    client.on('error', onError);
    client.on('end', onEnd);
    const detach = (error?: Error) => {
      client.off('error', onError);
      client.off('end', onEnd);
      client.release(error);
    };
    try {
      const taken = await Lease.take(client, service, JSON.stringify(holder), `${using} in ${this.location}`);
      if (!(taken instanceof Lease)) {
        const other = taken
          ? holderOf(taken.holder)
          : { pid: 0, host: 'another machine', startedAt: 'at an unknown time' };
        throw lockedBy(other, using, taken?.leftMs);
      }
      lease = taken;
    } catch (error) {
      detach();
      throw this.storeError(error, 'cannot be reached');
    }
    const held = lease;
    const writes = new GroupCommit((statements) => this.transaction(statements, held));
    const fenced: Executor = { ...this.sql, batch: (statements) => writes.write(statements) };
    return {
      store: new BorrowedStore(
        this,
        fenced,
        () => writes.settled(),
        () => held.valid(),
      ),
      release: async () => {
        // What was written under the lease lands (or fails) before it is given back, and nothing after.
        await writes.settled();
        try {
          await held.release();
          // A lease lost leaves its connection behind it: renewals queued on it go with it.
          detach(held.lost ? held.lostError() : undefined);
        } catch (error) {
          // The connection is gone: the lease runs out by itself.
          detach(error as Error);
        }
      },
      onLost: (listener) => held.onLost(listener),
    };
  }

  /** The journal's SQL on the pool; also what `store copy` writes whole tables through. */
  readonly sql: Executor = {
    one: async (sql, params) => (await this.query(sql, params))[0],
    all: (sql, params) => this.query(sql, params),
    batch: (statements) => this.writes.write(statements),
    // Durable when the server answers: its commit is.
    change: async (sql, params) => {
      try {
        return (await this.pool.query(numbered(sql), [...params])).rowCount ?? 0;
      } catch (error) {
        throw this.storeError(error, 'cannot be written');
      }
    },
  };

  private async query(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    try {
      return (await this.pool.query(numbered(sql), [...params])).rows;
    } catch (error) {
      throw this.storeError(error, 'cannot be read');
    }
  }

  /**
   * The statements in one transaction; under a lease, only while it is this holder's: its token is checked last, its
   * row kept from being taken until the commit, and a lease run out on this side meanwhile rolls it all back.
   */
  private async transaction(statements: readonly Statement[], lease?: Lease): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      client.on('error', this.noteBroken);
      await client.query('BEGIN');
      if (lease !== undefined && !lease.valid()) throw lease.lostError();
      for (const [sql, params] of statements) await client.query(numbered(sql), [...params]);
      await lease?.fence(client);
      await client.query('COMMIT');
      client.off('error', this.noteBroken);
      client.release();
    } catch (error) {
      // A connection whose transaction broke is not given back to the pool: it may be the one that is gone.
      client?.release(error as Error);
      throw this.storeError(error, 'cannot be written');
    }
  }

  private async migrate(): Promise<void> {
    const client = await this.pool.connect();
    client.on('error', this.noteBroken);
    try {
      await client.query('BEGIN');
      // Two processes starting at once: the second waits here, then finds the steps done.
      await client.query("SELECT pg_advisory_xact_lock(hashtext('payer-onboard: schema'))");
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
      );
      const { rows } = await client.query('SELECT MAX(version) AS version FROM schema_migrations');
      for (const step of stepsAfter(Number(rows[0]?.version ?? 0), this.location)) {
        await client.query(step.postgres ?? step.sql);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          step.version,
          step.name,
          new Date().toISOString(),
        ]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', this.noteBroken);
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.writes.settled();
    await this.pool.end();
  }

  /**
   * A server that cannot be reached, refuses the login or went away: the run stops as it does when the API is down
   * (exit 3, rows pending), in one sentence that never holds the URL's password.
   */
  /** A server's words with the URL's password cut out, wherever they quote it. */
  private scrub(text: string): string {
    return this.secrets.reduce((clean, secret) => clean.split(secret).join('***'), text);
  }

  private storeError(error: unknown, what: string): PayerOnboardError {
    if (error instanceof PayerOnboardError) return error;
    const cause = this.broken ?? (error as Error);
    this.broken = undefined;
    const code = (cause as NodeJS.ErrnoException).code ?? '';
    const reason = this.scrub(`${code && !/^\d/.test(code) ? `${code}: ` : ''}${cause.message ?? String(cause)}`);
    return new AbortedError(
      `the store ${this.location} ${what} (${reason}): check that the PostgreSQL server is up and the URL in ` +
        `${this.given} is right, then run the command again: nothing is lost (a run reads back what it sent, a copy is one transaction)`,
    );
  }
}

/** `?` placeholders as PostgreSQL numbers them; the journal's SQL has no `?` anywhere else. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The URL as messages may show it (no password), and the password, to cut out of any message that quotes it. */
function parseUrl(url: string, given: string): { location: string; secrets: string[] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${given} is not a URL: give postgres://USER:PASSWORD@HOST:PORT/DATABASE`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new ConfigError(
      `${given} must be a postgres:// URL, not ${parsed.protocol}//: the embedded store needs no URL`,
    );
  // The password in the user part, or as pg also takes it, in the query (`?password=`).
  const passwords = [parsed.password, parsed.searchParams.get('password') ?? ''].filter((p) => p !== '');
  const secrets = passwords.flatMap((p) => {
    try {
      return [p, decodeURIComponent(p)];
    } catch {
      return [p];
    }
  });
  parsed.password = '';
  parsed.search = '';
  return { location: parsed.toString(), secrets: secrets.filter((p) => p.length > 0) };
}
