import { createHmac } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { checkChildren, running } from '../helpers/checkChildren.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { API_KEY, payersCsv } from '../helpers/runHarness.js';
import { WEBHOOK_SECRET } from '../helpers/serveHarness.js';
import { type Spawned, spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';
import { waitFor } from '../helpers/waitFor.js';

// The web page's check of an upload runs in a process of its own: while it is busy (the check's test hook keeps it
// so for 30 s, as a hostile file would), serve answers a signed webhook and obeys SIGTERM, which ends the check too.

const PASSWORD = 'correct horse battery staple';
let sandbox: SandboxHandle | undefined;
const children: Spawned[] = [];
const tmp = tempDir();
afterEach(async () => {
  for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  await sandbox?.close();
  tmp.remove();
});

async function signedIn(url: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = await (await fetch(`${url}/`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]! };
}

/** A signed delivery of an event for a payer serve does not know (recorded, then ignored): its status. */
async function deliver(url: string): Promise<number> {
  const body = JSON.stringify({ event: 'compliance.updated', clientUserId: 'stranger-1', kycStatus: 'pending' });
  const signature = createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
  const res = await fetch(`${url}/webhooks`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-request-network-signature': signature,
      'x-request-network-delivery': '01J00000000000000000000001',
    },
  });
  return res.status;
}

it('while an upload is checked for 30 s: a signed webhook is answered within 5 s, SIGTERM ends serve and the check within 10 s', async () => {
  sandbox = await startSandbox({ port: 0, apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET });
  const inbox = inboxAt(tmp.path('inbox'));
  const flags = ['serve', '--inbox', inbox.root, '--port', '0', '--base-url', sandbox.url, '--settle', '0'];
  const serve = spawnBin([...flags, '--state-dir', tmp.path('state'), '--rate', '0'], {
    cwd: tmp.dir,
    env: {
      PAYER_API_KEY: API_KEY,
      PAYER_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYER_WEB_PASSWORD: PASSWORD,
      PAYER_ONBOARD_TEST_CHECK_BUSY_MS: '30000',
    },
  });
  children.push(serve);
  await waitFor(() => serve.stderr().includes('serve: listening on'), 'serve to listen');
  const url = /serve: listening on (http:\/\/[\d.:]+)/.exec(serve.stderr())![1]!;
  const pid = serve.child.pid!;

  const { cookie, csrf } = await signedIn(url);
  const form = new FormData();
  form.append('file', new Blob([payersCsv(['u-1', 'u-2'])]), 'payers.csv');
  // Answered only once the check ends: here, when serve stops.
  const uploading = fetch(`${url}/uploads?_csrf=${csrf}`, {
    method: 'POST',
    body: form,
    headers: { cookie },
    redirect: 'manual',
  }).catch(() => undefined);
  await waitFor(() => checkChildren(pid).length === 1, 'the check to start');
  const [check] = checkChildren(pid);

  const sentAt = Date.now();
  expect(await deliver(url)).toBe(200);
  expect(Date.now() - sentAt).toBeLessThan(5000);
  expect(running(check!)).toBe(true);

  const stoppedAt = Date.now();
  serve.child.kill('SIGTERM');
  const ended = await serve.done;
  expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  expect(ended.code).toBe(0);
  expect(ended.stderr).toContain('serve: stopped');
  // No orphan: the check's process ended with serve.
  await waitFor(() => !running(check!), 'the check process to be gone', { timeoutMs: 2000 });
  await uploading;
  // Nothing of the file reached serve's output.
  expect(ended.stderr).not.toContain('u-1');
});
