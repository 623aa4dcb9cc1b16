import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { type HoldingProxy, startHoldingProxy } from './holdingProxy.js';
import { callsInDoubt, journalsIn, storeImage, waitingIn } from './storeOnDisk.js';
import { waitFor } from './waitFor.js';

/**
 * Which store the tests of this process run against: SQLite in each test's state dir, or, in the `postgres` project
 * (`npm run test:postgres`), a database of each test's own on the server PAYER_ONBOARD_TEST_DATABASE_URL names.
 */
const BACKEND: 'sqlite' | 'postgres' = process.env.PAYER_ONBOARD_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/** A test's store, whichever backend: what a run needs to use it, and what a test reads of it or does to it. */
export interface TestStore {
  /** Added to a run's environment. */
  env: NodeJS.ProcessEnv;
  /** What the store holds now: what a process killed at this moment leaves behind; `restore()` puts it back. */
  image(): Promise<{ restore(): Promise<void> }>;
  /** What the calls in doubt noted when they went out. */
  callsInDoubt(): Promise<Array<Record<string, string>>>;
  /** The services and keys with a journal. */
  journals(): Promise<string[]>;
  /** The rows waiting on their payers, by the name of the file they were kept from: how many rows each. */
  waiting(): Promise<Record<string, number>>;
  /** Everything it holds is lost (a state dir deleted, a database restored from nothing). */
  lose(): Promise<void>;
  close(): Promise<void>;
}

export async function testStore(stateDir: string): Promise<TestStore> {
  if (BACKEND === 'postgres') return postgresStore();
  return {
    env: {},
    image: async () => {
      const image = storeImage(stateDir);
      return { restore: async () => image.restore() };
    },
    callsInDoubt: () => callsInDoubt(stateDir),
    journals: async () => journalsIn(stateDir),
    waiting: async () => waitingIn(stateDir),
    lose: async () => rmSync(stateDir, { recursive: true, force: true }),
    close: async () => undefined,
  };
}

const TABLES = [
  'journal_calls',
  'journal_payers',
  'journal_payer_changes',
  'journal_settings',
  'journal_accounts',
  'waiting_files',
  'waiting_rows',
];

/** The server's URL with another database in its path. */
function urlOf(database: string): string {
  const server = process.env.PAYER_ONBOARD_TEST_DATABASE_URL;
  if (!server)
    throw new Error(
      'the PostgreSQL tests need a server: set PAYER_ONBOARD_TEST_DATABASE_URL to postgres://USER:PASSWORD@HOST:PORT/postgres (a user that may create databases)',
    );
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

async function postgresStore(): Promise<TestStore> {
  const name = `payer_onboard_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: urlOf('postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = urlOf(name);
  /** Each query on a connection of its own: a test may cut every connection to the database. */
  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };
  let images = 0;
  return {
    env: { PAYER_ONBOARD_DATABASE_URL: url },
    async image() {
      const n = ++images;
      // Committed is durable on the server: the image is what every table holds now.
      for (const table of TABLES) await query(`CREATE TABLE image${n}_${table} AS SELECT * FROM ${table}`);
      return {
        async restore() {
          const copy = TABLES.map((t) => `DELETE FROM ${t}; INSERT INTO ${t} SELECT * FROM image${n}_${t};`);
          await query(`BEGIN; ${copy.join(' ')} COMMIT;`);
        },
      };
    },
    async callsInDoubt() {
      const { rows } = await query("SELECT answer FROM journal_calls WHERE state = 'sent' ORDER BY key");
      return rows.map((row: { answer: string }) => JSON.parse(row.answer) as Record<string, string>);
    },
    async journals() {
      const { rows } = await query("SELECT service FROM journal_settings WHERE name = 'opened' ORDER BY service").catch(
        () => ({ rows: [] as Array<{ service: string }> }),
      );
      return rows.map((row: { service: string }) => row.service);
    },
    async waiting() {
      const { rows } = await query(
        'SELECT f.name AS name, COUNT(*) AS n FROM waiting_rows w JOIN waiting_files f ' +
          'ON f.service = w.service AND f.id = w.file_id GROUP BY f.name ORDER BY f.name',
      ).catch((error: { code?: string }) => {
        // No run has made the tables yet: nothing waits.
        if (error.code === '42P01') return { rows: [] as Array<{ name: string; n: string }> };
        throw error;
      });
      return Object.fromEntries(rows.map((row: { name: string; n: string }) => [row.name, Number(row.n)]));
    },
    async lose() {
      for (const table of TABLES) await query(`DELETE FROM ${table}`);
    },
    async close() {
      const dropper = new pg.Client({ connectionString: urlOf('postgres') });
      await dropper.connect();
      try {
        // FORCE ends the test's own connections, but not the server's autovacuum worker, which a test user may not
        // end: after a test wrote many rows, the database goes once that worker is done with it.
        await waitFor(
          () =>
            dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(
              () => true,
              (error: { code?: string }) => {
                if (error.code === '42501') return false;
                throw error;
              },
            ),
          `the test database ${name} to be free to drop`,
          { intervalMs: 100 },
        );
      } finally {
        await dropper.end();
      }
    },
  };
}

/**
 * A loopback proxy in front of the sandbox that, once armed, holds the answer to the next bank account create: the
 * service has stored the account, and the run has recorded the create as sent and heard nothing yet. Every run of a
 * test that uses it goes through its URL (the journal is kept per base URL).
 */
export async function crashAtCreate(sandboxUrl: string): Promise<{
  url: string;
  /** Waits for the held create, takes the store's image then, and lets the answer through. */
  imageAtCreate(store: TestStore): Promise<{ restore(): Promise<void> }>;
  /** Waits for the held create; its answer waits for release(). */
  held(): Promise<void>;
  release(): void;
  arm(): void;
  close(): Promise<void>;
}> {
  let armed = false;
  const proxy: HoldingProxy = await startHoldingProxy(
    sandboxUrl,
    (method, path) => armed && method === 'POST' && /\/payment-details$/.test(path),
  );
  return {
    url: proxy.url,
    arm: () => {
      armed = true;
    },
    async imageAtCreate(store) {
      await waitFor(() => proxy.holding(), 'the bank account create to be held');
      const image = await store.image();
      proxy.release();
      return image;
    },
    held: () => waitFor(() => proxy.holding(), 'the bank account create to be held'),
    release: () => proxy.release(),
    close: () => proxy.close(),
  };
}
