import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError, type PayerOnboardError } from '../../src/core/errors.js';
import { PgStore } from '../../src/store/PgStore.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { journalName, serviceIdentity } from '../../src/journal/stateDir.js';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { crashAtCreate } from '../helpers/testStore.js';

// The PostgreSQL store's own faults (the postgres project only: npm run test:postgres).

let h: Awaited<ReturnType<typeof harness>>;
let url: string;
beforeEach(async () => {
  h = await harness();
  url = h.store.env.PAYER_ONBOARD_DATABASE_URL!;
});
afterEach(async () => {
  await h.close();
});

const PASSWORD = () => decodeURIComponent(new URL(url).password);

async function refusal(open: Promise<unknown>): Promise<PayerOnboardError> {
  try {
    await open;
  } catch (error) {
    return error as PayerOnboardError;
  }
  throw new Error('the store opened');
}

/** SQL as the test database's owner: on that database, or on the server's own (`postgres`). */
async function sql(text: string, database?: string): Promise<void> {
  const target = new URL(url);
  if (database !== undefined) target.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL store', () => {
  it('runs its migrations once when several processes open a new database at the same moment', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => PgStore.open(url)));
    for (const store of stores) await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version');
    await client.end();
    expect(rows).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
  });

  it('refuses a database written by a newer version, naming both versions', async () => {
    await (await PgStore.open(url)).close();
    await sql(`INSERT INTO schema_migrations VALUES (${SCHEMA_VERSION + 1}, 'from the future', 'now')`);
    const error = await refusal(PgStore.open(url));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`is at schema version ${SCHEMA_VERSION + 1}, written by a newer payer-onboard`);
  });

  it('a login refused or a server not there: exit 3 as the API down is, and never the password', async () => {
    const wrong = new URL(url);
    wrong.password = 'not-the-password';
    const refused = await refusal(PgStore.open(wrong.toString()));
    expect(refused).toBeInstanceOf(AbortedError);
    expect(refused.exitCode).toBe(3);
    expect(refused.message).toMatch(
      /^the store postgres:\/\/[^:@/]+@127\.0\.0\.1:\d+\/\w+ cannot be opened \(.*password authentication failed/,
    );
    expect(refused.message).not.toContain('not-the-password');
    const nowhere = new URL(url);
    nowhere.port = '1';
    const unreachable = await refusal(PgStore.open(nowhere.toString()));
    expect(unreachable.exitCode).toBe(3);
    expect(unreachable.message).toContain('(ECONNREFUSED');
    expect(unreachable.message).not.toContain(PASSWORD());
  });

  it('a service and key held on another machine that shares the database turns a run away, naming that run', async () => {
    const store = await PgStore.open(url);
    const service = journalName(serviceIdentity(h.sandbox.url), API_KEY);
    const elsewhere = {
      pid: 4242,
      host: 'laptop-7',
      startedAt: '2026-12-01T09:00:00.000Z',
      runId: 'r-7',
      stateDir: '/home/ada/.local/state/payer-onboard',
    };
    const hold = await store.hold(service, elsewhere, 'that service');
    try {
      const input = h.tmp.write('payers.csv', payersCsv(['m-1']));
      const error = await refusal(h.run({ inputs: [input] }));
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe(
        `another run is using ${h.sandbox.url} with this API key: pid 4242 on laptop-7, state dir ` +
          '/home/ada/.local/state/payer-onboard, started 2026-12-01T09:00:00.000Z (run r-7); its hold lapses within ' +
          '10 s should it have stopped. Wait for it to finish.',
      );
      expect(h.sandbox.stats().requests).toBe(0);
    } finally {
      await hold.release();
      await store.close();
    }
    const { summary } = await h.run({ inputs: [h.tmp.path('payers.csv')] });
    expect(summary.exitCode).toBe(0);
  });

  it('a run of the version before the lease (its session lock) still going when this one starts turns it away', async () => {
    const service = journalName(serviceIdentity(h.sandbox.url), API_KEY);
    // The key that version held a service and key by, as it made it.
    const key = BigInt(`0x${createHash('sha256').update(`payer-onboard: ${service}`).digest('hex').slice(0, 15)}`);
    await (await PgStore.open(url)).close();
    const earlier = new pg.Client({ connectionString: url });
    await earlier.connect();
    try {
      await earlier.query('SELECT pg_advisory_lock($1)', [key.toString()]);
      const holder = { pid: 77, host: 'old-box', startedAt: '2026-11-30T08:00:00.000Z', runId: 'r-old' };
      await earlier.query('INSERT INTO service_holders (service, holder) VALUES ($1, $2)', [
        service,
        JSON.stringify(holder),
      ]);
      const input = h.tmp.write('payers.csv', payersCsv(['v-1']));
      const error = await refusal(h.run({ inputs: [input] }));
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(
        /^another run is using .* pid 77 on old-box, started 2026-11-30T08:00:00.000Z \(run r-old\)\. Wait/,
      );
      expect(h.sandbox.stats().requests).toBe(0);
    } finally {
      await earlier.end();
    }
    // Once it ended (its session with it), runs go on.
    const { summary } = await h.run({ inputs: [h.tmp.path('payers.csv')] });
    expect(summary.exitCode).toBe(0);
  });

  it('a hold lost mid-run (its session ended on the server) stops the run before another machine can take over', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const input = h.tmp.write('payers.csv', payersCsv(['lost-1', 'lost-2', 'lost-3']));
      crash.arm();
      const running = h.run({ inputs: [input], baseUrl: crash.url, concurrency: 1 });
      await crash.held();
      // The session that holds the run's lease is ended (a DBA, an idle timeout, a restart).
      await sql('SELECT pg_terminate_backend(backend) FROM service_holders WHERE backend IS NOT NULL');
      const stopped = await (async () => {
        crash.release();
        return running;
      })();
      expect(stopped.summary.exitCode).toBe(3);
      expect(stopped.summary.aborted?.reason).toBe('write-failed');
      expect(stopped.summary.aborted?.message).toMatch(
        /^stopped: the hold of .* was lost \(.*\); nothing more is sent$/,
      );
      expect(stopped.summary.aborted?.message).not.toContain(PASSWORD());
      expect(stopped.results.map((r) => r.outcome)).toContain('skipped');
      // Nothing was lost: the next run finishes the file, creating nothing twice.
      const again = await h.run({ inputs: [input], baseUrl: crash.url });
      expect(again.summary.rows.ok).toBe(3);
      expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 3, duplicatePaymentDetails: 0 });
    } finally {
      await crash.close();
    }
  });

  it('a database gone mid-run stops the run: exit 3, the rows left pending, nothing created twice when it is back', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    const name = new URL(url).pathname.slice(1);
    try {
      const baseUrl = crash.url;
      const input = h.tmp.write('payers.csv', payersCsv(['g-1', 'g-2', 'g-3']));
      crash.arm();
      const running = h.run({ inputs: [input], baseUrl, concurrency: 1 });
      // While the first create is out, the database goes away: every connection cut, none taken.
      await crash.held();
      await sql(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`, 'postgres');
      await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`, 'postgres');
      crash.release();
      const stopped = await running;
      expect(stopped.summary.exitCode).toBe(3);
      expect(stopped.summary.aborted?.reason).toBe('write-failed');
      const location = new URL(url);
      location.password = '';
      // Whichever it met first: its hold's session cut, its next read or its next write refused.
      expect(stopped.stderr).toMatch(
        new RegExp(
          `stopped: (the store ${location} cannot be (written|read)|the hold of .* in ${location} was lost) \\(`,
        ),
      );
      expect(stopped.results.filter((r) => r.outcome === 'ok').length).toBeLessThan(3);
      // No row is failed for it: what was done is said, the rest is left for the next run.
      expect(stopped.results.filter((r) => r.outcome === 'failed')).toEqual([]);
      for (const text of [
        stopped.stderr,
        readFileSync(stopped.summary.outputs.results, 'utf8'),
        ...logs(stopped.summary.outputs.dir),
      ])
        expect(text).not.toContain(PASSWORD());

      await sql(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`, 'postgres');
      const again = await h.run({ inputs: [input], baseUrl });
      expect(again.summary.rows.ok).toBe(3);
      expect(h.sandbox.stats()).toMatchObject({
        payersCreated: 3,
        paymentDetailsCreated: 3,
        duplicatePaymentDetails: 0,
      });
    } finally {
      await crash.close();
    }
  });
});

function logs(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.log') || name.endsWith('.json'))
    .map((name) => readFileSync(join(dir, name), 'utf8'));
}
