import { waitingIn } from '../helpers/storeOnDisk.js';
import { eventsIn } from '../helpers/storeOnDisk.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { API_KEY, payersCsv } from '../helpers/runHarness.js';
import { WEBHOOK_SECRET } from '../helpers/serveHarness.js';
import { type Spawned, spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';
import { waitFor } from '../helpers/waitFor.js';

// `serve` killed with SIGKILL while webhooks stream in, then started again: every event it answered 2xx is acted on,
// and no bank account is created twice.

let sandbox: SandboxHandle | undefined;
const children: Spawned[] = [];
const tmp = tempDir();
afterEach(async () => {
  for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  await sandbox?.close();
  tmp.remove();
});

/** Every event line of the log, and the ids marked done. */
/** What serve's store holds of the webhooks: recorded, and acted on. */
const eventLog = eventsIn;

it('SIGKILL mid-stream, restart: every event answered 2xx is acted on, 0 accounts twice', async () => {
  sandbox = await startSandbox({
    port: 0,
    apiKey: API_KEY,
    webhookSecret: WEBHOOK_SECRET,
    // Deliveries refused while serve is down are tried again for 21 s, as the service does: long enough for the restart.
    accountApproveMs: 600_000,
    // Each run takes a few round trips: events are recorded faster than they are acted on, as under load.
    latencyMs: 100,
  });
  const inbox = inboxAt(tmp.path('inbox'));
  const state = tmp.path('state');
  const args = ['serve', '--inbox', inbox.root, '--port', '0', '--base-url', sandbox.url];
  // The default recheck (72 h): nothing but the events themselves can finish these payers within the test.
  const flags = [...args, '--settle', '0', '--state-dir', state, '--rate', '0'];
  const env = { PAYER_API_KEY: API_KEY, PAYER_WEBHOOK_SECRET: WEBHOOK_SECRET };
  const start = async () => {
    const serve = spawnBin(flags, { cwd: tmp.dir, env });
    children.push(serve);
    await waitFor(() => serve.stderr().includes('serve: listening on'), 'serve to listen');
    // Each start listens on a port of its own: the sandbox is told where to deliver, as the portal would be.
    sandbox!.setWebhookUrl(`${/serve: listening on (http:\/\/[\d.:]+)/.exec(serve.stderr())![1]}/webhooks`);
    return serve;
  };

  const payers = Array.from({ length: 30 }, (_, i) => `k-${String(i + 1).padStart(2, '0')}`);
  const first = await start();
  inbox.drop('payers.csv', payersCsv(payers));
  await waitFor(() => Object.keys(waitingIn(state)).length > 0, 'the rows to wait');

  // Approvals stream in; serve is killed once it has recorded some of their events and acted on few or none.
  // The first run's own changes (agreements completed) were told too: only the approvals' events count here.
  await waitFor(() => {
    const log = eventLog(state);
    return log.recorded.length > 0 && log.recorded.every((id) => log.done.has(id));
  }, "the first run's events settled");
  const before = eventLog(state).recorded.length;
  for (const id of payers.slice(0, 15)) sandbox.setKyc(id, 'approved');
  await waitFor(() => eventLog(state).recorded.length >= before + 15, 'every approval recorded');
  first.child.kill('SIGKILL');
  const killed = await first.done;
  expect(killed.signal).toBe('SIGKILL');
  const atKill = eventLog(state);
  // The kill came between answering some events and acting on them: what this test is about.
  expect(atKill.recorded.some((id) => !atKill.done.has(id))).toBe(true);

  await start();
  for (const id of payers.slice(15)) sandbox.setKyc(id, 'approved');
  await waitFor(() => Object.keys(waitingIn(state)).length === 0, 'every payer finished after the restart', {
    timeoutMs: 60_000,
  });

  expect(payers.map((id) => sandbox!.payer(id)?.paymentDetails.length)).toEqual(payers.map(() => 1));
  const after = eventLog(state);
  for (const id of atKill.recorded) expect(after.done.has(id)).toBe(true);
  await waitFor(() => eventLog(state).recorded.every((id) => eventLog(state).done.has(id)), 'every event settled');
});

it('SIGTERM: stops taking requests, ends what is in flight, exits 0 and leaves no lock behind', async () => {
  sandbox = await startSandbox({ port: 0, apiKey: API_KEY, latencyMs: 50 });
  const inbox = inboxAt(tmp.path('inbox'));
  const flags = ['serve', '--inbox', inbox.root, '--port', '0', '--base-url', sandbox.url];
  const env = { PAYER_API_KEY: API_KEY, PAYER_WEBHOOK_SECRET: WEBHOOK_SECRET };
  const args = [...flags, '--settle', '0', '--state-dir', tmp.path('state'), '--rate', '0'];
  const serve = spawnBin(args, { cwd: tmp.dir, env });
  children.push(serve);
  await waitFor(() => serve.stderr().includes('serve: listening on'), 'serve to listen');
  inbox.drop('payers.csv', payersCsv(Array.from({ length: 40 }, (_, i) => `t-${i}`)));
  // Mid-run: some payers registered, not all.
  await waitFor(() => sandbox!.stats().payersCreated > 0, 'the run to start sending');
  serve.child.kill('SIGTERM');
  const ended = await serve.done;
  expect(ended.code).toBe(0);
  expect(ended.stderr).toContain('serve: stopped');
  expect(existsSync(join(inbox.root, 'lock'))).toBe(false);
  // What was cut short stays in processing/ and is resumed by the next start: a second serve finishes it.
  const again = spawnBin(args, { cwd: tmp.dir, env });
  children.push(again);
  await waitFor(() => Object.keys(waitingIn(tmp.path('state'))).length > 0, 'the next start to finish the file');
  expect(sandbox.stats().payersCreated).toBe(40);
});
