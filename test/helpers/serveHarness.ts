import { ServiceLock } from '../../src/journal/ServiceLock.js';
import { journalName, serviceIdentity } from '../../src/journal/stateDir.js';
import { waitFor } from './waitFor.js';
import { waitingIn } from './storeOnDisk.js';
import { type ServeHandle, type ServeOptions, startServe } from '../../src/serve/runServe.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import { inboxAt } from './inboxFixtures.js';
import { API_KEY, memoryStream } from './runHarness.js';
import { tempDir } from './tempDir.js';

export const WEBHOOK_SECRET = 'whsec-test-3f9a';

/**
 * A sandbox that sends signed webhooks, as the service does, to a `serve` over an inbox in a scratch folder, all on
 * loopback. KYC moves only when the test says (`setKyc`), as for real payers.
 */
export async function serveHarness(
  options: {
    sandbox?: SandboxOptions;
    serve?: Partial<ServeOptions>;
    startServe?: boolean;
    /** Where serve sends instead of the sandbox itself (a proxy in front of it). */
    baseUrlFor?: (sandboxUrl: string) => Promise<string>;
  } = {},
) {
  const sandbox: SandboxHandle = await startSandbox({
    port: 0,
    apiKey: API_KEY,
    kycAfter: undefined,
    webhookSecret: WEBHOOK_SECRET,
    // The service's retry schedule a tenth as long: a delivery refused is tried again within 2 s.
    webhookTimeScale: 0.1,
    accountApproveMs: 60_000,
    ...options.sandbox,
  });
  const tmp = tempDir();
  const inbox = inboxAt(tmp.path('inbox'));
  const stderr = memoryStream();
  const serveOptions: ServeOptions = {
    inbox: inbox.root,
    port: 0,
    webhookSecret: WEBHOOK_SECRET,
    settle: 0,
    pollMs: 50,
    run: { baseUrl: (await options.baseUrlFor?.(sandbox.url)) ?? sandbox.url, rate: 0, stateDir: tmp.path('state') },
    ...options.serve,
  };
  const env = { PAYER_API_KEY: API_KEY };
  // serve listens on a port of the system's choosing; the sandbox is then told where to deliver, as a portal is.
  const open = async () => {
    const handle = await startServe(serveOptions, { cwd: tmp.dir, env, stderr: stderr.stream });
    sandbox.setWebhookUrl(`${handle.url}/webhooks`);
    return handle;
  };
  let serve: ServeHandle | undefined;
  try {
    if (options.startServe !== false) serve = await open();
  } catch (error) {
    await sandbox.close();
    tmp.remove();
    throw error;
  }
  return {
    sandbox,
    tmp,
    inbox,
    env,
    /** How many rows wait in serve's store (its state dir), by the file they were kept from. */
    waiting: () => waitingIn(tmp.path('state')),
    /** How many files of rows wait in serve's store. */
    waitingFiles: () => Object.keys(waitingIn(tmp.path('state'))).length,
    get serve(): ServeHandle {
      if (serve === undefined) throw new Error('serve is not running');
      return serve;
    },
    /** serve stopped and started again over the same inbox and store, with these options changed. */
    async restart(changed: Partial<ServeOptions> = {}): Promise<ServeHandle> {
      await serve?.close();
      Object.assign(serveOptions, changed);
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

/**
 * A person's run of the sandbox's service and key on this machine holding it (its lock, as `run` takes it), taken
 * between two of serve's passes: a pass with work holds it too, until the pass ends.
 */
export async function personHolds(sandboxUrl: string, runId: string): Promise<ServiceLock> {
  const service = journalName(serviceIdentity(sandboxUrl), API_KEY);
  let taken: ServiceLock | undefined;
  await waitFor(async () => {
    taken = await ServiceLock.acquire(
      service,
      { runId, stateDir: '/home/ada/.local/state/payer-onboard' },
      `${sandboxUrl} with this API key`,
    ).catch(() => undefined);
    return taken !== undefined;
  }, "serve's pass to end");
  return taken!;
}
