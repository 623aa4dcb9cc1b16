import { createServer } from 'node:net';
import { type ServeHandle, type ServeOptions, startServe } from '../../src/serve/runServe.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import { inboxAt } from './inboxFixtures.js';
import { API_KEY, memoryStream } from './runHarness.js';
import { tempDir } from './tempDir.js';

export const WEBHOOK_SECRET = 'whsec-test-3f9a';

/** A loopback port free now: the sandbox is told where to send its webhooks before `serve` listens there. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A sandbox that sends signed webhooks, as the service does, to a `serve` over an inbox in a scratch folder, all on
 * loopback. KYC moves only when the test says (`setKyc`), as for real payers.
 */
export async function serveHarness(
  options: { sandbox?: SandboxOptions; serve?: Partial<ServeOptions>; startServe?: boolean } = {},
) {
  const port = await freePort();
  const sandbox: SandboxHandle = await startSandbox({
    port: 0,
    apiKey: API_KEY,
    kycAfter: undefined,
    webhookUrl: `http://127.0.0.1:${port}/webhooks`,
    webhookSecret: WEBHOOK_SECRET,
    webhookRetryMs: 50,
    accountApproveMs: 60_000,
    ...options.sandbox,
  });
  const tmp = tempDir();
  const inbox = inboxAt(tmp.path('inbox'));
  const stderr = memoryStream();
  const serveOptions: ServeOptions = {
    inbox: inbox.root,
    port,
    webhookSecret: WEBHOOK_SECRET,
    settle: 0,
    pollMs: 50,
    run: { baseUrl: sandbox.url, rate: 0, stateDir: tmp.path('state') },
    ...options.serve,
  };
  const env = { PAYER_API_KEY: API_KEY };
  const open = () => startServe(serveOptions, { cwd: tmp.dir, env, stderr: stderr.stream });
  let serve: ServeHandle | undefined = options.startServe === false ? undefined : await open();
  return {
    sandbox,
    tmp,
    inbox,
    port,
    env,
    get serve(): ServeHandle {
      if (serve === undefined) throw new Error('serve is not running');
      return serve;
    },
    async restart(): Promise<ServeHandle> {
      await serve?.close();
      serve = await open();
      return serve;
    },
    stderr: () => stderr.text(),
    async close() {
      await serve?.close();
      await sandbox.close();
      tmp.remove();
    },
  };
}
