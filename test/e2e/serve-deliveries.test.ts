import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness, WEBHOOK_SECRET } from '../helpers/serveHarness.js';
import { eventsIn } from '../helpers/storeOnDisk.js';
import { waitFor } from '../helpers/waitFor.js';

// The sandbox delivers its webhooks to a real serve as the service documents them (a delivery id, retries on its
// schedule, test deliveries, a payment_detail.updated that names only the account), and serve acts on each change
// once, whatever the deliveries repeat.

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
const relays: Server[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => new Promise((resolve) => relay.close(resolve))));
  await h?.close();
  h = undefined;
});

const ids = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(2, '0')}`);

function accountsOf(harness: NonNullable<typeof h>, payers: string[]): number[] {
  return payers.map((id) => harness.sandbox.payer(id)?.paymentDetails.length ?? -1);
}

async function registered(harness: NonNullable<typeof h>, payers: string[]) {
  harness.inbox.drop('payers.csv', payersCsv(payers));
  await waitFor(() => harness.waitingFiles() > 0, 'the first run to leave its rows waiting');
}

const metrics = async (harness: NonNullable<typeof h>) => (await fetch(`${harness.serve.url}/metrics`)).text();

/** The deliveries serve answered as ones it had recorded already, so far. */
const duplicates = async (harness: NonNullable<typeof h>) =>
  Number(/payer_onboard_webhooks_total\{result="duplicate"\} (\d+)$/m.exec(await metrics(harness))?.[1] ?? 0);

/** Bank account creates the sandbox was sent (refused by its KYC gate or not) since `before`. */
const createsSince = (harness: NonNullable<typeof h>, before: number) =>
  harness.sandbox.stats().byRoute['payment-details'] - before;

/** The results folders of the runs of waiting rows: one per batch of events that ran any. */
const runsOfWaiting = (harness: NonNullable<typeof h>) =>
  harness.inbox.list('results').filter((name) => name.startsWith('pending-payers.csv-'));

interface Relayed {
  headers: IncomingHttpHeaders;
  raw: string;
}

/**
 * A loopback hop between the sandbox and serve that keeps what each delivery carried: the n-th is answered
 * `answers[n]` by the hop itself (serve never sees it), the others are handed to serve and answered as serve answers.
 */
async function relay(serveUrl: string, answers: number[] = []) {
  const seen: Relayed[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const own = answers[seen.length];
      seen.push({ headers: req.headers, raw });
      if (own !== undefined) return void res.writeHead(own).end();
      const forwarded = Object.entries(req.headers).filter(([name]) => /^(content-type|x-request-network-)/.test(name));
      const answer = await fetch(`${serveUrl}/webhooks`, {
        method: 'POST',
        headers: Object.fromEntries(forwarded) as Record<string, string>,
        body: raw,
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relays.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, seen };
}

describe('serve: deliveries as the service sends them', () => {
  it('the same delivery id twice acts once', async () => {
    // The service's own schedule (5 s an attempt): no delivery is tried again here because serve was slow to answer.
    h = await serveHarness({ sandbox: { webhookTwice: 1, webhookTimeScale: 1 } });
    const payers = ids(2, 'twice');
    await registered(h, payers);
    const relayed = await relay(h.serve.url);
    h.sandbox.setWebhookUrl(relayed.url);
    const [duplicatesBefore, createsBefore] = [await duplicates(h), h.sandbox.stats().byRoute['payment-details']];
    for (const id of payers) h.sandbox.setKyc(id, 'approved');
    await waitFor(() => accountsOf(h!, payers).every((n) => n === 1) && h!.waitingFiles() === 0, 'both to finish');
    await waitFor(() => relayed.seen.length === 4, 'each delivery to come twice');
    const sent = relayed.seen.map((d) => d.headers['x-request-network-delivery'] as string);
    expect(new Set(sent).size).toBe(2);
    // Each id recorded once, and the rows of both payers run as if each delivery had come once.
    expect(
      eventsIn(h.tmp.path('state'))
        .recorded.filter((id) => sent.includes(id))
        .sort(),
    ).toEqual([...new Set(sent)].sort());
    expect((await duplicates(h)) - duplicatesBefore).toBe(2);
    expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 2, duplicatePaymentDetails: 0 });
    expect(createsSince(h, createsBefore)).toBe(2);
  });

  it('one body delivered under two ids acts at most twice, the second time as reads', async () => {
    h = await serveHarness();
    await registered(h, ['body-1']);
    const relayed = await relay(h.serve.url);
    h.sandbox.setWebhookUrl(relayed.url);
    const createsBefore = h.sandbox.stats().byRoute['payment-details'];
    h.sandbox.setKyc('body-1', 'approved');
    await waitFor(() => relayed.seen.length === 1, 'the approval delivered');
    // The same signed body again, as a second delivery: an event the service sent twice.
    const [first] = relayed.seen;
    const again = await fetch(`${h.serve.url}/webhooks`, {
      method: 'POST',
      body: first!.raw,
      headers: {
        'content-type': 'application/json',
        'x-request-network-signature': first!.headers['x-request-network-signature'] as string,
        'x-request-network-delivery': '01JDZZZZZZZZZZZZZZZZZZZZZZ',
        'x-request-network-retry-count': '0',
      },
    });
    expect(await again.json()).toEqual({ received: true });
    const both = [first!.headers['x-request-network-delivery'] as string, '01JDZZZZZZZZZZZZZZZZZZZZZZ'];
    await waitFor(() => both.every((id) => eventsIn(h!.tmp.path('state')).done.has(id)), 'both deliveries acted on');
    expect(accountsOf(h, ['body-1'])).toEqual([1]);
    expect(runsOfWaiting(h).length).toBeLessThanOrEqual(2);
    // One create in all: whatever the second delivery ran was reads (its row done, or found done by a read).
    expect(createsSince(h, createsBefore)).toBe(1);
    expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 1, duplicatePaymentDetails: 0 });
  });

  it("a test delivery fired by the sandbox's admin route is answered and changes nothing", async () => {
    h = await serveHarness();
    for (const eventType of ['compliance.updated', 'payment_detail.updated']) {
      const fired = await fetch(`${h.sandbox.url}/__sandbox/webhooks/test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eventType }),
      });
      expect(await fired.json()).toEqual({ sent: 1, failed: 0 });
    }
    expect(h.stderr()).toContain(
      'a test delivery from the service (compliance.updated): signature good; nothing changed',
    );
    expect(h.stderr()).toContain('a test delivery from the service (payment_detail.updated): signature good');
    expect(await metrics(h)).toMatch(/payer_onboard_webhooks_total\{result="test"\} 2$/m);
    expect(eventsIn(h.tmp.path('state')).recorded).toEqual([]);
    expect(h.sandbox.stats().requests).toBe(0);
    expect(h.inbox.list('results')).toEqual([]);
  });

  for (const shape of ['reference-app', 'community'] as const)
    it(`payment_detail.updated failed naming only its account (${shape}): the payer is named in failed/ with what to do`, async () => {
      h = await serveHarness({ sandbox: { webhookAccountShape: shape } });
      const payers = ids(3, shape === 'community' ? 'c' : 'b');
      await registered(h, payers);
      for (const id of payers) h.sandbox.setKyc(id, 'approved');
      await waitFor(() => accountsOf(h!, payers).every((n) => n === 1), 'every account attached');
      // No row waits any more: the payer is found by its account alone, through the journal's index.
      await waitFor(() => h!.waitingFiles() === 0, 'no row left waiting');
      const refused = h.sandbox.payer(payers[1]!)!.paymentDetails[0]!.id;
      h.sandbox.setPaymentDetailStatus(refused, 'failed');
      await waitFor(
        () => h!.inbox.list('failed').some((f) => f.startsWith('bank-accounts-')),
        'the refusal in failed/',
      );
      const file = h.inbox.list('failed').find((f) => /^bank-accounts-.*\.csv$/.test(f))!;
      const lines = readFileSync(h.inbox.path('failed', file), 'utf8').trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]!.startsWith(`${payers[1]},`)).toBe(true);
      expect(lines[1]).toContain('failed=1');
      const note = readFileSync(h.inbox.path('failed', `${file}.error.txt`), 'utf8');
      expect(note).toContain("failed the provider's check");
      expect(note).toContain('Ask each payer for their bank details again');
    });

  it('an account the journal does not know is answered 200, said and counted as unknown, and costs nothing', async () => {
    h = await serveHarness();
    await registered(h, ['known-1']);
    const requests = h.sandbox.stats().requests;
    // Another tool's account, failed; signed in upper-case hex, which is the same signature.
    const body = JSON.stringify({ event: 'payment_detail.updated', paymentDetailsId: 'pd-stranger', status: 'failed' });
    const signature = createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
    const answer = await fetch(`${h.serve.url}/webhooks`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-request-network-signature': signature.toUpperCase() },
    });
    expect(answer.status).toBe(200);
    await waitFor(() => /ignored: a bank account the journal does not know/.test(h!.stderr()), 'the stranger said');
    expect(await metrics(h)).toMatch(
      /payer_onboard_events_total\{event="payment_detail.updated",settled="unknown-account"\} 1$/m,
    );
    expect(h.sandbox.stats().requests).toBe(requests);
    expect(h.inbox.list('failed')).toEqual([]);
  });
});

describe("serve: the sandbox's retries", () => {
  it('a serve that answers 500, then 200, gets the same delivery again: retry counts 0 then 1, acted on once', async () => {
    // The service's own schedule: the retry a second later, and 5 s for serve to answer it.
    h = await serveHarness({ sandbox: { webhookTimeScale: 1 } });
    await registered(h, ['retry-1']);
    const relayed = await relay(h.serve.url, [500]);
    h.sandbox.setWebhookUrl(relayed.url);
    h.sandbox.setKyc('retry-1', 'approved');
    await waitFor(() => accountsOf(h!, ['retry-1'])[0] === 1, 'the account attached after the retry');
    expect(relayed.seen.map((d) => d.headers['x-request-network-retry-count'])).toEqual(['0', '1']);
    const [first, second] = relayed.seen.map((d) => d.headers['x-request-network-delivery']);
    expect(second).toBe(first);
    expect(eventsIn(h.tmp.path('state')).recorded).toContain(first);
    expect(h.sandbox.stats()).toMatchObject({ webhookRetries: 1, webhooksDropped: 0 });
  });

  it('a serve down for longer than the whole retry window loses the delivery: the sandbox counts it dropped', async () => {
    h = await serveHarness();
    await registered(h, ['down-1']);
    const settled = () => {
      const events = eventsIn(h!.tmp.path('state'));
      return events.done.size === events.recorded.length;
    };
    await waitFor(settled, "the first run's events acted on");
    const recorded = eventsIn(h.tmp.path('state')).recorded;
    await h.serve.close();
    h.sandbox.setKyc('down-1', 'approved');
    // The schedule a tenth as long: four attempts over about 2 s, each refused.
    await expect.poll(() => h!.sandbox.stats()).toMatchObject({ webhooksDropped: 1, webhookRetries: 3 });
    await h.restart();
    expect(eventsIn(h.tmp.path('state')).recorded).toEqual(recorded);
    // Nothing told serve: the row waits for its recheck.
    expect(h.waitingFiles()).toBe(1);
    expect(accountsOf(h, ['down-1'])).toEqual([0]);
  });
});
