import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { API_KEY, payersCsv } from '../helpers/runHarness.js';
import { WEBHOOK_SECRET } from '../helpers/serveHarness.js';
import { type Spawned, spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';
import { waitFor } from '../helpers/waitFor.js';

// Two `serve` over one PostgreSQL, as two machines behind one proxy: both take webhooks, one worker acts at a time
// under a lease. The one acting is killed, or stopped (SIGSTOP) with a bank account create answered late; the other
// takes over and acts on old and new events; the stopped one, resumed, writes nothing; no account is made twice.

let sandbox: SandboxHandle;
let store: TestStore;
const children: Spawned[] = [];
const tmp = tempDir();

beforeEach(async () => {
  sandbox = await startSandbox({
    port: 0,
    apiKey: API_KEY,
    webhookSecret: WEBHOOK_SECRET,
    webhookTimeScale: 0.2,
    accountApproveMs: 600_000,
  });
  store = await testStore(tmp.path('unused'));
});

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) {
      c.child.kill('SIGCONT');
      c.child.kill('SIGKILL');
      await c.done;
    }
  }
  await sandbox.close();
  await store.close();
  tmp.remove();
});

/** A serve of its own inbox and state dir, on the shared database; the sandbox delivers to it once it listens. */
async function startServe(name: string) {
  const inbox = inboxAt(tmp.path(name));
  const args = ['serve', '--inbox', inbox.root, '--port', '0', '--base-url', sandbox.url, '--settle', '0'];
  const env = { PAYER_API_KEY: API_KEY, PAYER_WEBHOOK_SECRET: WEBHOOK_SECRET, ...store.env };
  const serve = spawnBin([...args, '--state-dir', tmp.path(`${name}-state`), '--rate', '0'], { cwd: tmp.dir, env });
  children.push(serve);
  await waitFor(() => serve.stderr().includes('serve: listening on'), `serve ${name} to listen`);
  const url = /serve: listening on (http:\/\/[\d.:]+)/.exec(serve.stderr())![1]!;
  sandbox.setWebhookUrl(`${url}/webhooks`);
  return { ...serve, url, inbox };
}

async function query(text: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: store.env.PAYER_ONBOARD_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** Every event recorded is acted on. */
const eventsSettled = async () => (await query('SELECT 1 FROM serve_events WHERE done_at IS NULL')).length === 0;

/** What the journal and the rows waiting hold: what a worker writes. */
const written = () =>
  Promise.all([
    query('SELECT * FROM journal_calls ORDER BY service, key'),
    query('SELECT * FROM journal_payers ORDER BY service, key'),
    query('SELECT service, file_id, seq FROM waiting_rows ORDER BY service, file_id, seq'),
  ]);

/**
 * serve A registers two payers; the first is approved and A's worker, holding the lease, has the service create its
 * bank account, whose answer comes 20 s later. Serve B starts and takes the webhooks from then on.
 */
async function actingOnFirstApproval() {
  const a = await startServe('a');
  a.inbox.drop('payers.csv', payersCsv(['two-1', 'two-2']));
  await waitFor(async () => Object.keys(await store.waiting()).length > 0, 'the rows to wait on KYC');
  await waitFor(eventsSettled, "the first run's events acted on");
  sandbox.script([{ route: 'payment-details', fault: 'slow', delayMs: 20_000 }]);
  sandbox.setKyc('two-1', 'approved');
  await waitFor(() => sandbox.payer('two-1')!.paymentDetails.length === 1, "two-1's account stored by the service");
  const b = await startServe('b');
  return { a, b };
}

it('the acting serve killed: the other acts on its events and new ones at once, 0 accounts twice', async () => {
  const { a, b } = await actingOnFirstApproval();
  a.child.kill('SIGKILL');
  await a.done;
  const killedAt = Date.now();
  sandbox.setKyc('two-2', 'approved');
  await waitFor(async () => Object.keys(await store.waiting()).length === 0, 'every row to finish on serve b');
  // The lease's promise: another serve acts within 25 s of the kill (its connection ended: at once, in fact).
  expect(Date.now() - killedAt).toBeLessThan(25_000);
  expect(sandbox.payer('two-1')!.paymentDetails).toHaveLength(1);
  expect(sandbox.payer('two-2')!.paymentDetails).toHaveLength(1);
  expect(sandbox.stats().duplicatePaymentDetails).toBe(0);
  await waitFor(eventsSettled, 'every event acted on');
  expect(b.stderr()).not.toContain('the worker failed');
});

it('the acting serve stopped past its lease: the other takes over, the resumed one writes nothing, 0 twice', async () => {
  const { a, b } = await actingOnFirstApproval();
  a.child.kill('SIGSTOP');
  const stoppedAt = Date.now();
  sandbox.setKyc('two-2', 'approved');
  // b turns to the events recorded by a, finds the service held, and waits its turn: a's lease, not for ever.
  await waitFor(() => b.stderr().includes('serve: waiting its turn: payer-onboard serve is using'), 'b to wait');
  expect(b.stderr()).toMatch(/its hold lapses within \d+ s should it have stopped/);
  await waitFor(async () => Object.keys(await store.waiting()).length === 0, 'every row to finish on serve b');
  expect(Date.now() - stoppedAt).toBeLessThan(25_000);
  await waitFor(eventsSettled, 'every event acted on');
  expect(sandbox.payer('two-1')!.paymentDetails).toHaveLength(1);
  expect(sandbox.payer('two-2')!.paymentDetails).toHaveLength(1);

  // a comes back: its lease is gone, the late answer to its create comes, and it writes none of it.
  const before = await written();
  a.child.kill('SIGCONT');
  await waitFor(() => a.stderr().includes('was lost'), 'a to find its hold lost');
  await waitFor(() => /serve: .*trying again in/.test(a.stderr()), "a's pass to end");
  expect(await written()).toEqual(before);
  expect(sandbox.stats().duplicatePaymentDetails).toBe(0);
  expect(sandbox.payer('two-1')!.paymentDetails).toHaveLength(1);
});
