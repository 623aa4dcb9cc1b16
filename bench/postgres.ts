import pg from 'pg';

/** A database of the bench's own on a PostgreSQL server, for one scenario: the environment a run needs to use it. */
export interface BenchDatabase {
  env: NodeJS.ProcessEnv;
  /** A number the query answers (its first row's `n`). */
  count(sql: string): Promise<number>;
  drop(): Promise<void>;
}

/** Whether a server is given to measure the PostgreSQL store on (BENCH_DATABASE_URL). */
export const postgresGiven = (): boolean => Boolean(process.env.BENCH_DATABASE_URL);

/**
 * A new database on the server BENCH_DATABASE_URL names (a user that may create databases, as the PostgreSQL tests'
 * PAYER_ONBOARD_TEST_DATABASE_URL), dropped by `drop()`.
 */
export async function benchDatabase(scenario: string): Promise<BenchDatabase> {
  const server = process.env.BENCH_DATABASE_URL;
  if (!server)
    throw new Error(
      `bench: ${scenario} needs a server: set BENCH_DATABASE_URL to postgres://USER:PASSWORD@HOST:PORT/postgres`,
    );
  const name = `payer_onboard_bench_${Date.now()}`;
  const at = (database: string) => {
    const url = new URL(server);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const query = async (database: string, sql: string) => {
    const client = new pg.Client({ connectionString: at(database) });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  };
  await query('postgres', `CREATE DATABASE ${name}`);
  return {
    env: { PAYER_ONBOARD_DATABASE_URL: at(name) },
    count: async (sql) => Number((await query(name, sql).catch(() => [{ n: 0 }]))[0]?.['n'] ?? 0),
    drop: async () => void (await query('postgres', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}
