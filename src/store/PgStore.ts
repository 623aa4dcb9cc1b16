import { createHash } from 'node:crypto';
import pg from 'pg';
import { AbortedError, ConfigError, PayerOnboardError } from '../core/errors.js';
import type { Executor, Statement } from './SqlJournal.js';
import { type Holder, lockedBy } from './holder.js';
import { stepsAfter } from './schema.js';
import { SqlStore } from './SqlStore.js';
import type { Hold } from './Store.js';

/**
 * The store on a PostgreSQL server, for a team of machines: every run, `status` and `serve` that is given the same
 * database shares one memory. Commits are durable when they return (the server's own fsync); the journal's writes go
 * out one transaction after the other, in the order they were made, on a pool of a few connections.
 */
export class PgStore extends SqlStore {
  /** The writes in flight, one after the other: a later record of a call never lands before an earlier one. */
  private writing: Promise<unknown> = Promise.resolve();
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
   * A session-level advisory lock on a connection kept for the run: every machine that shares the database sees it,
   * and the server frees it when that connection ends, however the process ends. That connection ending while the
   * run goes on (the server restarted, the session killed) loses the lock: the listeners are told, and the run stops.
   */
  async hold(service: string, holder: Holder, using: string): Promise<Hold> {
    const key = BigInt(`0x${createHash('sha256').update(`payer-onboard: ${service}`).digest('hex').slice(0, 15)}`);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.storeError(error, 'cannot be reached');
    }
    let released = false;
    let lostWhy: string | undefined;
    const listeners: Array<(why: string) => void> = [];
    const lose = (why: string) => {
      if (released || lostWhy !== undefined) return;
      lostWhy = `the hold of ${using} in ${this.location} was lost (${this.scrub(why)})`;
      for (const listener of listeners) listener(lostWhy);
    };
    const onError = (error: Error) => lose(error.message);
    const onEnd = () => lose('its connection ended');
    client.on('error', onError);
    client.on('end', onEnd);
    const detach = () => {
      client.off('error', onError);
      client.off('end', onEnd);
    };
    try {
      const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS held', [key.toString()]);
      if (rows[0]?.held !== true) {
        const found = await client.query('SELECT holder FROM service_holders WHERE service = $1', [service]);
        const other = found.rows[0] ? (JSON.parse(found.rows[0].holder) as Holder) : undefined;
        throw lockedBy(other ?? { pid: 0, host: 'another machine', startedAt: 'at an unknown time' }, using);
      }
      await client.query(
        'INSERT INTO service_holders (service, holder) VALUES ($1, $2) ON CONFLICT (service) DO UPDATE SET holder = excluded.holder',
        [service, JSON.stringify(holder)],
      );
    } catch (error) {
      detach();
      client.release();
      throw this.storeError(error, 'cannot be reached');
    }
    // A connection the network dropped says nothing: asked every few seconds whether it still holds the lock, it
    // either answers within the heartbeat or the hold counts as lost (the run stops before another can take over).
    const beat = setInterval(() => {
      const asked = client.query(
        "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted LIMIT 1",
      );
      const late = new Promise<never>((_, reject) => {
        setTimeout(() => reject(new Error('no answer within 5 s')), HEARTBEAT_MS).unref();
      });
      Promise.race([asked, late]).then(
        (answer) => {
          if ((answer as pg.QueryResult).rowCount === 0) lose('the server no longer has it');
        },
        (error: Error) => lose(error.message),
      );
    }, HEARTBEAT_MS);
    beat.unref();
    return {
      release: async () => {
        released = true;
        clearInterval(beat);
        try {
          await client.query('SELECT pg_advisory_unlock($1)', [key.toString()]);
          detach();
          client.release();
        } catch (error) {
          // The connection is gone, and the lock with it.
          detach();
          client.release(error as Error);
        }
      },
      onLost: (listener) => {
        if (lostWhy !== undefined) listener(lostWhy);
        else listeners.push(listener);
      },
    };
  }

  /** The journal's SQL on the pool; also what `store copy` writes whole tables through. */
  readonly sql: Executor = {
    one: async (sql, params) => (await this.query(sql, params))[0],
    all: (sql, params) => this.query(sql, params),
    batch: (statements) => {
      const write = this.writing.then(() => this.transaction(statements));
      this.writing = write.catch(() => undefined);
      return write;
    },
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

  private async transaction(statements: readonly Statement[]): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      client.on('error', this.noteBroken);
      await client.query('BEGIN');
      for (const [sql, params] of statements) await client.query(numbered(sql), [...params]);
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
        await client.query(step.sql);
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
    await this.writing;
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

/** How often the connection that holds a service and key is asked whether it still does, and how long it has. */
const HEARTBEAT_MS = 5000;

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
