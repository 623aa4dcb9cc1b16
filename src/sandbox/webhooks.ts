import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from './faults.js';
import type { StoredPayer } from './payers.js';

// The service's webhooks, as the sandbox sends them: after a payer's KYC or agreement changes (`compliance.updated`)
// and after a stored account's check moves (`payment_detail.updated`), a signed JSON POST to the registered URL. The
// sender watches the store rather than being told what changed: after every operation on a payer, and when the clock
// will have moved a status (`--kyc-after`, `--account-approve-ms`), it compares the payer with what it last saw.

export type WebhookEvent =
  | { event: 'compliance.updated'; clientUserId: string; userId: string; kycStatus: string; agreementStatus: string }
  | {
      event: 'payment_detail.updated';
      clientUserId: string;
      userId: string;
      paymentDetailId: string;
      status: string;
    };

export interface WebhookConfig {
  /** Where deliveries go; none yet: changes are watched, nothing is sent until one is registered. */
  url: string | undefined;
  secret: string;
  drop: number;
  twice: number;
  /** The first retry's wait; each next one waits twice as long. */
  retryMs: number;
  rng: Rng;
  count: (counter: 'webhooksSent' | 'webhooksFailed' | 'webhooksDropped') => void;
  /** Aborted by the sandbox's close(): no more sends or retries. */
  closing: AbortSignal;
}

/** The signature header: hex SHA-256 HMAC of the raw body, keyed with the webhook secret. */
const SIGNATURE_HEADER = 'x-request-network-signature';
/** Attempts per delivery: the first and three retries. */
const ATTEMPTS = 4;

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
    const base = { clientUserId: payer.clientUserId, userId: payer.userId };
    if (before.compliance !== compliance) {
      const { kycStatus, agreementStatus } = payer;
      this.enqueue({ event: 'compliance.updated', ...base, kycStatus, agreementStatus });
    }
    for (const [paymentDetailId, status] of accounts) {
      const was = before.accounts.get(paymentDetailId);
      // A new account is created `pending`: only a move of an account already seen is an update.
      if (was !== undefined && was !== status)
        this.enqueue({ event: 'payment_detail.updated', ...base, paymentDetailId, status });
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

  /** Registers where the deliveries go from now on, as the service's portal does. */
  setUrl(url: string): void {
    this.config.url = url;
  }

  private enqueue(event: WebhookEvent): void {
    const { rng, drop, twice } = this.config;
    if (this.config.url === undefined) return;
    // Drawn when the change happens, in order, so the same seed and requests drop the same deliveries.
    if (rng.next() < drop) return void this.config.count('webhooksDropped');
    const copies = rng.next() < twice ? 2 : 1;
    const body = JSON.stringify(event);
    const key = event.clientUserId;
    let chain = this.queues.get(key) ?? Promise.resolve();
    for (let i = 0; i < copies; i += 1) chain = chain.then(() => this.deliver(body));
    this.queues.set(key, chain);
    void chain.then(() => {
      if (this.queues.get(key) === chain) this.queues.delete(key);
    });
  }

  /** One delivery: retried with backoff on a non-2xx answer or a failed connection; never rejects. */
  private async deliver(body: string): Promise<void> {
    const { secret, closing } = this.config;
    const url = this.config.url!;
    const signature = createHmac('sha256', secret).update(body).digest('hex');
    for (let attempt = 0; attempt < ATTEMPTS && !closing.aborted; attempt += 1) {
      if (attempt > 0) {
        const waited = await sleep(this.config.retryMs * 2 ** (attempt - 1), true, { signal: closing }).catch(
          () => false,
        );
        if (!waited) break;
      }
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
          body,
          signal: AbortSignal.any([closing, AbortSignal.timeout(10_000)]),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) return void this.config.count('webhooksSent');
      } catch {
        // Refused, reset or timed out: retried like a non-2xx answer.
      }
    }
    this.config.count('webhooksFailed');
  }
}
