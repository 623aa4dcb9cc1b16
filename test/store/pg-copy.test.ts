import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { PgStore } from '../../src/store/PgStore.js';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import type { PayerRecord } from '../../src/store/Store.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';

// `payer-onboard store copy`: a SQLite store into PostgreSQL (the postgres project only: npm run test:postgres).

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
/** A run on the SQLite store of a state dir: the test's database URL set empty, so that no run uses it. */
const ON_SQLITE = { PAYER_API_KEY: API_KEY, PAYER_ONBOARD_DATABASE_URL: '' };

async function storeCopy(stateDir: string, env: NodeJS.ProcessEnv = { PAYER_ONBOARD_COPY_TO_URL: url }) {
  const out = memoryStream();
  const err = memoryStream();
  const io = { stdout: out.stream, stderr: err.stream, env, cwd: h.tmp.dir, signal: new AbortController().signal };
  const code = await cli(['store', 'copy', '--state-dir', stateDir], io);
  return { code, stdout: out.text(), stderr: err.text() };
}

/** Every row of the journal's tables and the webhooks, in one order: what the database holds. */
async function tablesOf(database: string): Promise<Record<string, unknown[]>> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const tables: Record<string, unknown[]> = {};
    for (const table of [
      'journal_calls',
      'journal_payers',
      'journal_payer_changes',
      'journal_settings',
      'journal_accounts',
      'serve_events',
      'payer_directory',
      'payer_links',
      'payer_mails',
      'payer_signatures',
    ])
      tables[table] = (await client.query(`SELECT * FROM ${table} ORDER BY 1, 2, 3`)).rows;
    return tables;
  } finally {
    await client.end();
  }
}

const payer = (over: Partial<PayerRecord>): PayerRecord => ({
  agreementDone: false,
  accountIds: [],
  accountsKnown: true,
  ...over,
});

describe('store copy into PostgreSQL', () => {
  it('into an empty database: a run there afterwards, on another machine, sends nothing for the rows done', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['c-1', 'c-2', 'c-3']));
    const laptop = h.tmp.path('laptop');
    const first = await h.run({ inputs: [input], stateDir: laptop }, ON_SQLITE);
    expect(first.summary.exitCode).toBe(0);

    const copied = await storeCopy(laptop);
    expect(copied).toMatchObject({ code: 0, stdout: '' });
    expect(copied.stderr).toMatch(
      /^copied the store \S+\/laptop\/payer-onboard\.db into postgres:\/\/[^:@/]+@127\.0\.0\.1:\d+\/\w+: 1 service; payers 3 copied, 0 merged; calls \d+ copied, 0 merged; \d+ settings, 0 webhook deliveries and 0 rows waiting copied; directory entries 3 copied, 0 merged; 0 payer links, 0 mail records and \d+ signatures copied\n$/,
    );
    const requests = h.sandbox.stats().requests;
    const server = h.tmp.path('server');
    const again = await h.run(
      { inputs: [input], stateDir: server },
      { PAYER_API_KEY: API_KEY, PAYER_ONBOARD_DATABASE_URL: url },
    );
    expect(again.summary.exitCode).toBe(0);
    expect(h.sandbox.stats().requests).toBe(requests);
    for (const row of again.results)
      expect(row.steps).toBe('compliance=done-before payment-details=done-before agreement=done-before');
    // A webhook that names only a bank account finds its payer in the database too.
    const store = await PgStore.open(url);
    try {
      const journal = store.journal((await store.services())[0]!);
      const owners = await Promise.all(first.results.map((r) => journal.payerOfAccount(r.paymentDetailId!)));
      expect(owners.map((owner) => owner?.clientUserId)).toEqual(['c-1', 'c-2', 'c-3']);
    } finally {
      await store.close();
    }
  });

  it('a second copy of the same store changes nothing', async () => {
    const laptop = h.tmp.path('laptop');
    await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(['t-1', 't-2']))], stateDir: laptop }, ON_SQLITE);
    expect((await storeCopy(laptop)).code).toBe(0);
    const once = await tablesOf(url);
    const twice = await storeCopy(laptop);
    expect(twice.stderr).toContain(
      ': 1 service; payers 0 copied, 0 merged; calls 0 copied, 0 merged; 0 settings, 0 webhook deliveries and 0 rows waiting copied; directory entries 0 copied, 0 merged; 0 payer links, 0 mail records and 0 signatures copied\n',
    );
    expect(await tablesOf(url)).toEqual(once);
  });

  it('the stores of two machines into one database: a payer known to both keeps what each knew', async () => {
    const service = 'api.example.com-0123456789ab';
    const laptop = SqliteStore.open(h.tmp.path('laptop'));
    await laptop.journal(service).write([
      { call: 'create-1', record: { state: 'sent', answer: { ids: '' } } },
      { payer: 'both', record: payer({ accountIds: [['a-1', 'id-1']], since: '2025-03-02', kycUrl: 'https://k/1' }) },
      { payer: 'laptop-only', record: payer({ since: '2025-03-01', kycStatus: 'initiated' }) },
      { setting: 'gate', value: 'gated' },
      { setting: 'closed', value: '1' },
    ]);
    await laptop.events(service).record({ id: 'e-1', at: '2025-03-02', body: '{"event":"x"}' }, '2025-03-01');
    const kept = {
      id: 'r/pending-payers.csv',
      name: 'pending-payers.csv',
      format: 'csv',
      shape: '{"parts":[]}',
      addedAt: '2025-03-02',
    };
    const row = { part: 0, payerKey: 'laptop-only', clientUserId: 'l-1', original: '["l-1"]', completedSteps: '' };
    await laptop.waiting(service).replace(kept, [], [row]);
    laptop.close();
    const server = SqliteStore.open(h.tmp.path('server'));
    await server.journal(service).write([
      { call: 'create-1', record: { state: 'done', status: 201, answer: { id: 'id-1' } } },
      { payer: 'both', record: payer({ accountIds: [['a-2', 'id-2']], since: '2025-03-01', userId: 'u-1' }) },
      { setting: 'gate', value: 'open' },
    ]);
    server.close();

    expect((await storeCopy(h.tmp.path('laptop'))).stderr).toContain(
      ': 1 service; payers 2 copied, 0 merged; calls 1 copied, 0 merged; 1 settings, 1 webhook deliveries and 1 rows waiting copied; directory entries 0 copied, 0 merged; 0 payer links, 0 mail records and 0 signatures copied\n',
    );
    expect((await storeCopy(h.tmp.path('server'))).stderr).toContain(
      ': 1 service; payers 0 copied, 1 merged; calls 0 copied, 0 merged; 0 settings, 0 webhook deliveries and 0 rows waiting copied; directory entries 0 copied, 0 merged; 0 payer links, 0 mail records and 0 signatures copied\n',
    );
    const store = await PgStore.open(url);
    try {
      const journal = store.journal(service);
      // Each account id either knew is the payer's; neither machine's writes here named its clientUserId.
      expect(await journal.payerOfAccount('id-1')).toEqual({ key: 'both' });
      expect(await journal.payerOfAccount('id-2')).toEqual({ key: 'both' });
      expect(await journal.payer('both')).toEqual({
        agreementDone: false,
        accountIds: [
          ['a-1', 'id-1'],
          ['a-2', 'id-2'],
        ],
        // Two memories of one payer: neither knows every account the service stores.
        accountsKnown: false,
        since: '2025-03-01',
        userId: 'u-1',
        kycUrl: 'https://k/1',
      });
      expect(await journal.payer('laptop-only')).toEqual(payer({ since: '2025-03-01', kycStatus: 'initiated' }));
      expect(await journal.changes('laptop-only')).toEqual([{ at: '2025-03-01', kycStatus: 'initiated', accounts: 0 }]);
      // A create the database holds in doubt stays so: the next run's read settles it (the laptop's create may have
      // made an account of its own), never the other machine's answer to its own create.
      expect(await journal.call('create-1')).toEqual({ state: 'sent', answer: { ids: '' } });
      // The first copy's setting stays; a journal copied from elsewhere is not taken as closed by a run of its own.
      expect(await journal.setting('gate')).toBe('gated');
      expect(await journal.setting('closed')).toBeUndefined();
      expect((await store.events(service).pending()).map((e) => e.id)).toEqual(['e-1']);
      expect(await store.waiting(service).ofPayers(['laptop-only'])).toEqual([
        { fileId: kept.id, seq: 1, payerKey: 'laptop-only', clientUserId: 'l-1' },
      ]);
    } finally {
      await store.close();
    }
  });

  it('the payer directory of two machines: the newer entry wins; links, mails and signatures joined, the first kept', async () => {
    const service = 'api.example.com-0123456789ab';
    const at = (day: number) => `2026-12-0${day}T10:00:00.000Z`;
    const entry = (id: string, email: string, day: number) => ({
      clientUserId: id,
      firstName: 'Ada',
      email,
      updatedAt: at(day),
    });
    const link = (hash: string, id: string) => ({
      tokenHash: hash,
      clientUserId: id,
      createdAt: at(1),
      expiresAt: at(9),
    });
    const server = SqliteStore.open(h.tmp.path('server'));
    const ours = server.directory(service);
    await ours.putEntries([
      entry('both-newer-here', 'server@example.com', 2),
      entry('both-older-here', 'old@example.com', 1),
    ]);
    await ours.addLink(link('h-1', 'both-newer-here'));
    await ours.putMail({ clientUserId: 'both-newer-here', step: 'invitation', state: 'sent', at: at(2) });
    await ours.sign({ clientUserId: 'both-newer-here', how: 'page', at: at(2) });
    server.close();
    const laptop = SqliteStore.open(h.tmp.path('laptop'));
    const theirs = laptop.directory(service);
    await theirs.putEntries([
      entry('both-newer-here', 'stale@example.com', 1),
      entry('both-older-here', 'new@example.com', 3),
      entry('laptop-only', 'l@example.com', 1),
    ]);
    await theirs.addLink(link('h-1', 'both-newer-here'));
    await theirs.addLink({ ...link('h-2', 'laptop-only'), revokedAt: at(4) });
    await theirs.putMail({
      clientUserId: 'both-newer-here',
      step: 'invitation',
      state: 'refused',
      reason: 'x',
      at: at(1),
    });
    await theirs.putMail({ clientUserId: 'both-newer-here', step: 'reminder-1', state: 'sending', at: at(5) });
    await theirs.sign({ clientUserId: 'both-newer-here', how: 'row', at: at(1) });
    await theirs.sign({ clientUserId: 'laptop-only', how: 'elsewhere', at: at(1) });
    laptop.close();

    expect((await storeCopy(h.tmp.path('server'))).stderr).toContain(
      '; directory entries 2 copied, 0 merged; 1 payer links, 1 mail records and 1 signatures copied\n',
    );
    // The server's entry of both-newer-here is newer than the laptop's: it stays; both-older-here takes the laptop's.
    expect((await storeCopy(h.tmp.path('laptop'))).stderr).toContain(
      '; directory entries 1 copied, 1 merged; 1 payer links, 1 mail records and 1 signatures copied\n',
    );
    const once = await tablesOf(url);
    expect((await storeCopy(h.tmp.path('laptop'))).stderr).toContain(
      '; directory entries 0 copied, 0 merged; 0 payer links, 0 mail records and 0 signatures copied\n',
    );
    expect(await tablesOf(url)).toEqual(once);
    const store = await PgStore.open(url);
    try {
      const directory = store.directory(service);
      const ids = ['both-newer-here', 'both-older-here', 'laptop-only'];
      const entries = await directory.entries(ids);
      expect(ids.map((id) => entries.get(id)?.email)).toEqual([
        'server@example.com',
        'new@example.com',
        'l@example.com',
      ]);
      expect(entries.get('both-older-here')?.updatedAt).toBe(at(3));
      expect(await directory.link('h-2')).toEqual({ ...link('h-2', 'laptop-only'), revokedAt: at(4) });
      expect((await directory.mails(ids)).map((m) => [m.clientUserId, m.step, m.state])).toEqual([
        ['both-newer-here', 'invitation', 'sent'],
        ['both-newer-here', 'reminder-1', 'sending'],
      ]);
      expect([...(await directory.signatures(ids)).values()].map((s) => [s.clientUserId, s.how])).toEqual([
        ['both-newer-here', 'page'],
        ['laptop-only', 'elsewhere'],
      ]);
    } finally {
      await store.close();
    }
  });

  it('never says the password: the target named without it, a refusing server in one sentence without it', async () => {
    const laptop = h.tmp.path('laptop');
    await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(['w-1']))], stateDir: laptop }, ON_SQLITE);
    writeFileSync(h.tmp.path('url'), `${url}\n`, { mode: 0o600 });
    const out = memoryStream();
    const err = memoryStream();
    const io = {
      stdout: out.stream,
      stderr: err.stream,
      env: {},
      cwd: h.tmp.dir,
      signal: new AbortController().signal,
    };
    const code = await cli(['store', 'copy', '--state-dir', laptop, '--to-database-url-file', 'url'], io);
    expect(code).toBe(0);
    expect(err.text()).toMatch(/^copied the store .* into postgres:\/\/[^:@/]+@127\.0\.0\.1:\d+\/\w+: /);
    const wrong = new URL(url);
    wrong.pathname = '/no_such_database';
    const refused = await storeCopy(laptop, { PAYER_ONBOARD_COPY_TO_URL: wrong.toString() });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /^payer-onboard: the store postgres:\/\/[^:@/]+@127\.0\.0\.1:\d+\/no_such_database cannot be opened \(.*no_such_database.*\): check that the PostgreSQL server is up and the URL in PAYER_ONBOARD_COPY_TO_URL is right/,
    );
    for (const said of [err.text(), out.text(), refused.stderr, refused.stdout]) expect(said).not.toContain(PASSWORD());
  });
});
