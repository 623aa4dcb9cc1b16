import { afterEach, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { openStore } from '../../src/store/openStore.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { API_KEY, payersCsv } from '../helpers/runHarness.js';
import { type Spawned, spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';
import { waitFor } from '../helpers/waitFor.js';
import { startSmtpServer } from '../mail/smtpServer.js';

// `serve` killed with SIGKILL between two invitations, then started again: every payer gets its invitation, and
// none gets it twice.

let sandbox: SandboxHandle | undefined;
let smtp: Awaited<ReturnType<typeof startSmtpServer>> | undefined;
const children: Spawned[] = [];
const tmp = tempDir();
afterEach(async () => {
  for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  await sandbox?.close();
  await smtp?.close();
  tmp.remove();
});

it('SIGKILL between two sends, restart: each payer invited once', async () => {
  sandbox = await startSandbox({ port: 0, apiKey: API_KEY });
  smtp = await startSmtpServer();
  const inbox = inboxAt(tmp.path('inbox'));
  const state = tmp.path('state');
  const flags = ['serve', '--inbox', inbox.root, '--port', '0', '--base-url', sandbox.url, '--settle', '0'];
  // One mail every 10 s: the kill lands between two of them, however loaded the machine (a kill during a send leaves
  // a claim that is taken over only 10 minutes later, which is not what this test is about).
  const mail = ['--public-url', 'https://payers.example.com', '--trust-proxy', '127.0.0.1'];
  mail.push('--mail-from', 'Payments <pay@example.com>');
  mail.push('--mail-rate', '6');
  const env = { PAYER_API_KEY: API_KEY, PAYER_ONBOARD_SMTP_URL: `smtp://127.0.0.1:${smtp.port}` };
  const start = async () => {
    const serve = spawnBin([...flags, '--state-dir', state, '--rate', '0', ...mail], { cwd: tmp.dir, env });
    children.push(serve);
    await waitFor(() => serve.stderr().includes('serve: listening on'), 'serve to listen');
    return serve;
  };
  const ids = ['kill-1', 'kill-2', 'kill-3'];
  const sentOf = async () => {
    const store = await openStore({ stateDir: state });
    try {
      const mails = await store.directory(journalName(sandbox!.url, API_KEY)).mails(ids);
      return mails.filter((m) => m.step === 'invitation' && m.state === 'sent').length;
    } finally {
      await store.close();
    }
  };

  const first = await start();
  inbox.drop('payers.csv', payersCsv(ids));
  await waitFor(async () => smtp!.received.length >= 1 && (await sentOf()) >= 1, 'a first invitation sent', {
    intervalMs: 100,
  });
  first.child.kill('SIGKILL');
  expect((await first.done).signal).toBe('SIGKILL');
  const atKill = smtp.received.length;
  expect(atKill).toBeLessThan(ids.length);

  await start();
  await waitFor(async () => (await sentOf()) === ids.length, 'every invitation sent after the restart', {
    intervalMs: 100,
  });
  expect(smtp.received.map((m) => m.to[0]).sort()).toEqual(ids.map((id) => `${id}@example.com`));
});
