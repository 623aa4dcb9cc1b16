import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AccountShape } from '../options/sandboxOptions.js';
import type { Rng } from './faults.js';
import type { StoredPayer } from './payers.js';

// The service's webhooks, as the sandbox sends them: after a payer's KYC or agreement changes (`compliance.updated`)
// and after a stored account's check moves (`payment_detail.updated`), a signed JSON POST to the registered URL, with
// the delivery headers and the retry schedule the service documents. The sender watches the store rather than being
// told what changed: after every operation on a payer, and when the clock will have moved a status (`--kyc-after`,
// `--account-approve-ms`), it compares the payer with what it last saw.

export interface WebhookConfig {
  /** Where deliveries go; none yet: changes are watched, nothing is sent until one is registered. */
  url: string | undefined;
  secret: string;
  drop: number;
  twice: number;
  /** Multiplies the documented retry delays and attempt timeout. */
  timeScale: number;
  accountShape: AccountShape;
  rng: Rng;
  /** The sandbox's clock (epoch ms): an event's `timestamp`. */
  now: () => number;
  count: (counter: 'webhooksSent' | 'webhooksDropped' | 'webhooksLost' | 'webhookRetries') => void;
  /** Aborted by the sandbox's close(): no more sends or retries. */
  closing: AbortSignal;
}

export const TEST_EVENT_TYPES = ['compliance.updated', 'payment_detail.updated'] as const;
export type TestEventType = (typeof TEST_EVENT_TYPES)[number];

/** The service's delivery headers. */
const SIGNATURE_HEADER = 'x-request-network-signature';
const DELIVERY_HEADER = 'x-request-network-delivery';
const RETRY_COUNT_HEADER = 'x-request-network-retry-count';
const TEST_HEADER = 'x-request-network-test';
/** The service's schedule: three retries after these waits, then the delivery is dropped. */
const RETRY_DELAYS_MS = [1000, 5000, 15_000];
/** What the service gives each attempt before it counts as failed. */
const ATTEMPT_TIMEOUT_MS = 5000;

/** One delivery as it goes out: the body, signed once, and the id every attempt of it carries. */
interface Delivery {
  body: string;
  id: string;
  test?: boolean;
}

export class WebhookSender {
  /** What each payer last looked like: `kyc|agreement` and each account's status. */
  private seen = new Map<string, { compliance: string; accounts: Map<string, string> }>();
  /** Each payer's deliveries go one after another, in the order of the changes. */
  private queues = new Map<string, Promise<void>>();
  private timers = new Set<NodeJS.Timeout>();

  constructor(private readonly config: WebhookConfig) {}

  /** Compares the payer with what was last seen and sends an event for each change (none for a new payer). */
  observe(payer: StoredPayer | undefined): void {
    if (payer === undefined || this.config.closing.aborted) return;
    const compliance = `${payer.kycStatus}|${payer.agreementStatus}`;
    const before = this.seen.get(payer.clientUserId);
    const accounts = new Map(payer.paymentDetails.map((d) => [d.id, d.status as string]));
    this.seen.set(payer.clientUserId, { compliance, accounts });
    if (before === undefined) return;
    if (before.compliance !== compliance) this.enqueue(payer.clientUserId, this.complianceEvent(payer));
    for (const [id, status] of accounts) {
      const was = before.accounts.get(id);
      // A new account is created `pending`: only a move of an account already seen is an update.
      if (was !== undefined && was !== status) this.enqueue(payer.clientUserId, this.accountEvent(id, status));
    }
  }

  /** Looks again after `ms`, when the clock will have moved a status. */
  later(ms: number, look: () => void): void {
    if (this.config.closing.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      look();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Forgets what was seen (the sandbox's reset); deliveries under way finish or are cut by close. */
  clear(): void {
    this.seen.clear();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  close(): void {
    this.clear();
  }

  /** Registers where the deliveries go from now on, as the service's dashboard does. */
  setUrl(url: string): void {
    this.config.url = url;
  }

  /**
   * One test delivery of the event type, as the service's `POST /v1/webhook/test` sends it: placeholder data, marked
   * `x-request-network-test: true`, one attempt. Throws when no URL is registered.
   */
  async sendTest(eventType: TestEventType): Promise<{ sent: number; failed: number }> {
    if (this.config.url === undefined) throw new Error('no webhook URL is registered: give --webhook-url');
    const event =
      eventType === 'compliance.updated'
        ? this.complianceEvent({
            clientUserId: 'user_test123456789',
            kycStatus: 'approved',
            agreementStatus: 'completed',
          })
        : this.accountEvent('pd_test123456789', 'approved');
    const ok = await this.attempt({ body: JSON.stringify(event), id: ulid(Date.now()), test: true }, 0);
    return { sent: ok ? 1 : 0, failed: ok ? 0 : 1 };
  }

  private complianceEvent(payer: Pick<StoredPayer, 'clientUserId' | 'kycStatus' | 'agreementStatus'>): object {
    const { clientUserId, kycStatus, agreementStatus } = payer;
    return {
      event: 'compliance.updated',
      clientUserId,
      kycStatus,
      agreementStatus,
      isCompliant: kycStatus === 'approved' && agreementStatus === 'completed',
      timestamp: new Date(this.config.now()).toISOString(),
      // The provider's own words, passed on: the sandbox has nothing more to say than the statuses.
      rawPayload: { provider: 'sandbox', kycStatus, agreementStatus },
    };
  }

  /** Neither shape names the payer: a receiver finds it by the account's id. */
  private accountEvent(id: string, status: string): object {
    const field = this.config.accountShape === 'community' ? 'paymentAccountId' : 'paymentDetailsId';
    return {
      event: 'payment_detail.updated',
      [field]: id,
      status,
      timestamp: new Date(this.config.now()).toISOString(),
    };
  }

  private enqueue(clientUserId: string, event: object): void {
    const { rng, drop, twice } = this.config;
    if (this.config.url === undefined) return;
    // Drawn when the change happens, in order, so the same seed and requests lose the same deliveries.
    if (rng.next() < drop) return void this.config.count('webhooksLost');
    const copies = rng.next() < twice ? 2 : 1;
    const delivery: Delivery = { body: JSON.stringify(event), id: ulid(Date.now()) };
    let chain = this.queues.get(clientUserId) ?? Promise.resolve();
    for (let i = 0; i < copies; i += 1) chain = chain.then(() => this.deliver(delivery));
    this.queues.set(clientUserId, chain);
    void chain.then(() => {
      if (this.queues.get(clientUserId) === chain) this.queues.delete(clientUserId);
    });
  }

  /** One delivery on the service's schedule: retried on any failure, then dropped; never rejects. */
  private async deliver(delivery: Delivery): Promise<void> {
    const { closing, timeScale } = this.config;
    for (let retry = 0; retry <= RETRY_DELAYS_MS.length; retry += 1) {
      if (retry > 0) {
        const waited = await sleep(RETRY_DELAYS_MS[retry - 1]! * timeScale, true, { signal: closing }).catch(
          () => false,
        );
        if (!waited) return;
        this.config.count('webhookRetries');
      }
      if (await this.attempt(delivery, retry)) return void this.config.count('webhooksSent');
      if (closing.aborted) return;
    }
    this.config.count('webhooksDropped');
  }

  /** One POST: whether it was answered 2xx within the attempt's time. */
  private async attempt(delivery: Delivery, retry: number): Promise<boolean> {
    const { secret, closing, timeScale } = this.config;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: createHmac('sha256', secret).update(delivery.body).digest('hex'),
      [DELIVERY_HEADER]: delivery.id,
      [RETRY_COUNT_HEADER]: String(retry),
      ...(delivery.test ? { [TEST_HEADER]: 'true' } : {}),
    };
    try {
      const res = await fetch(this.config.url!, {
        method: 'POST',
        headers,
        body: delivery.body,
        signal: AbortSignal.any([closing, AbortSignal.timeout(Math.ceil(ATTEMPT_TIMEOUT_MS * timeScale))]),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.ok;
    } catch {
      // Refused, reset or timed out: a failed attempt like a non-2xx answer.
      return false;
    }
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID, as the service names its deliveries: 48 bits of epoch milliseconds, then 80 random bits, as 26 characters
 * of Crockford's base 32 (so ids sort by time).
 */
function ulid(now: number): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i += 1, t = Math.floor(t / 32)) time = CROCKFORD[t % 32]! + time;
  let bits = 0n;
  for (const byte of randomBytes(10)) bits = (bits << 8n) | BigInt(byte);
  let random = '';
  for (let i = 0; i < 16; i += 1, bits >>= 5n) random = CROCKFORD[Number(bits & 31n)]! + random;
  return time + random;
}
