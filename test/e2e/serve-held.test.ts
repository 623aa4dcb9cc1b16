import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { LockedError } from '../../src/core/errors.js';
import { run } from '../../src/pipeline/run.js';
import { type HoldingProxy, startHoldingProxy } from '../helpers/holdingProxy.js';
import { API_KEY, memoryStream, payersCsv } from '../helpers/runHarness.js';
import { personHolds, serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// serve sends with the key only while its worker runs something; a person's run with the same key meanwhile holds
// the service and key for the whole machine, and serve's work waits its turn, shown by /healthz, then goes on.

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('serve while another run holds the service and key', () => {
  it('waits its turn, says who holds it (/healthz), and acts on the events once that run ends', async () => {
    h = await serveHarness();
    h.inbox.drop('payers.csv', payersCsv(['held-1']));
    await waitFor(() => h!.waitingFiles() > 0, 'the first run to leave its row waiting');
    // A person's run of the same service and key, on this machine, once serve's pass that ran the file is over.
    const person = await personHolds(h.sandbox.url, 'r-person');
    let released = false;
    try {
      h.sandbox.setKyc('held-1', 'approved');
      const health = async () => (await (await fetch(`${h!.serve.url}/healthz`)).json()) as Record<string, unknown>;
      await waitFor(
        async () => String((await health()).stopReason ?? '').startsWith('waiting its turn'),
        'serve to wait',
      );
      const said = await health();
      expect(said).toMatchObject({ ok: true, worker: 'paused', eventsPending: 1 });
      expect(said.stopReason).toContain(
        `another run is using ${h.sandbox.url} with this API key: pid ${process.pid} on ${hostname()}, ` +
          'state dir /home/ada/.local/state/payer-onboard, started ',
      );
      expect(said.stopReason).toContain('(run r-person)');
      expect(h.sandbox.payer('held-1')!.paymentDetails).toHaveLength(0);
      person.release();
      released = true;
      await waitFor(() => h!.sandbox.payer('held-1')!.paymentDetails.length === 1, 'the account attached');
      await waitFor(async () => (await health()).eventsPending === 0, 'the event done');
      expect(
        h
          .stderr()
          .split('\n')
          .filter((line) => line.startsWith('serve: waiting its turn')),
      ).toHaveLength(1);
    } finally {
      if (!released) person.release();
    }
  });

  it("turns away a person's run while serve sends, naming serve", async () => {
    // serve's create compliance is answered only when the test says: meanwhile serve holds the service and key.
    let proxy: HoldingProxy | undefined;
    try {
      h = await serveHarness({
        baseUrlFor: async (sandboxUrl) => {
          proxy = await startHoldingProxy(sandboxUrl, (method, path) => method === 'POST' && path === '/v2/payer');
          return proxy.url;
        },
      });
      h.inbox.drop('payers.csv', payersCsv(['busy-1']));
      await waitFor(() => proxy!.holding(), "serve's run to send");
      const error = await run(
        { inputs: [h.tmp.write('mine.csv', payersCsv(['mine-1']))], baseUrl: proxy!.url, out: h.tmp.path('out') },
        { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: memoryStream().stream },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockedError);
      expect((error as LockedError).message).toMatch(
        new RegExp(`^payer-onboard serve is using ${proxy!.url} with this API key: pid ${process.pid} on `),
      );
      expect((error as LockedError).message).toContain('Stop it first (or let it do this: it runs the inbox itself)');
      proxy!.release();
      await waitFor(() => h!.waitingFiles() > 0, "serve's run to end");
    } finally {
      await proxy?.close();
    }
  });
});
