import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestCounts } from '../output/results.js';

/** What `serve` counts, for Prometheus at GET /metrics. Every name starts `payer_onboard_`; no label holds an id. */
export class ServeMetrics {
  readonly registry = new Registry();
  /** Deliveries by what became of them: recorded, duplicate, or refused and why. */
  readonly webhooks = new Counter({
    name: 'payer_onboard_webhooks_total',
    help: "Webhook deliveries received, by result: recorded, duplicate, test (the service's test deliveries: nothing changed), or refused (signature, too-large, too-slow, not-an-event, unavailable)",
    labelNames: ['result'],
    registers: [this.registry],
  });
  /** Connections closed as they came and requests refused 429 by the per-client limits (clientLimits.ts). */
  readonly limited = new Counter({
    name: 'payer_onboard_limited_total',
    help: 'Connections closed as they came, or requests answered 429, by the limit they passed: connections-per-address, connections (all clients together), requests-per-client',
    labelNames: ['limit'],
    registers: [this.registry],
  });
  /** Recorded events once settled: acted on, or ignored and why. */
  readonly events = new Counter({
    name: 'payer_onboard_events_total',
    help: 'Recorded webhook events settled, by event type and how: acted, or the reason it was ignored',
    labelNames: ['event', 'settled'],
    registers: [this.registry],
  });
  readonly eventToDone = new Histogram({
    name: 'payer_onboard_event_to_done_seconds',
    help: 'Seconds from a webhook received to the run of its payer finished (its bank account attached, where one waited)',
    labelNames: ['event'],
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800],
    registers: [this.registry],
  });
  readonly pendingEvents = new Gauge({
    name: 'payer_onboard_events_pending',
    help: 'Webhook events recorded and not yet acted on',
    registers: [this.registry],
  });
  readonly paused = new Gauge({
    name: 'payer_onboard_worker_paused',
    help: '1 while the worker waits out a pause after a run stopped (the API down, the key refused), else 0',
    registers: [this.registry],
  });
  readonly catchUpLeft = new Gauge({
    name: 'payer_onboard_catch_up_rows_left',
    help: 'Waiting rows still to read again after a gap in taking webhooks longer than the service retries them (0 when none)',
    registers: [this.registry],
  });
  readonly waitingPayers = new Gauge({
    name: 'payer_onboard_waiting_payers',
    help: 'Payers with rows waiting on them (KYC, the agreement), counted at most once a minute',
    registers: [this.registry],
  });
  readonly payers = new Gauge({
    name: 'payer_onboard_payers',
    help: 'Payers of the journal by where it last saw them: kyc-pending, kyc-rejected, agreement-pending, ready (for a bank account)',
    labelNames: ['state'],
    registers: [this.registry],
  });
  readonly rows = new Counter({
    name: 'payer_onboard_rows_total',
    help: 'Rows run by serve (files, waiting rows, event batches), by outcome; rows an event batch left alone are not counted',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly requests = new Counter({
    name: 'payer_onboard_requests_total',
    help: 'Requests sent to the service by serve, by status code (network/timeout where none)',
    labelNames: ['status'],
    registers: [this.registry],
  });

  constructor() {
    // The process's own (memory, CPU, the event loop's delay since the last scrape: whether a page or a batch held
    // the webhooks up), under the same prefix.
    collectDefaultMetrics({ register: this.registry, prefix: 'payer_onboard_' });
  }

  /**
   * A run's or a status check's rows and requests, added up. `skipped` is left out: a batch of events runs a waiting
   * file for its payers only, and the rest of the file, skipped, would be counted again at every batch.
   */
  addRun(rows: Record<string, number> | undefined, requests: RequestCounts | undefined): void {
    for (const [outcome, n] of Object.entries(rows ?? {}))
      if (outcome !== 'total' && outcome !== 'skipped' && n > 0) this.rows.inc({ outcome }, n);
    for (const [status, n] of Object.entries(requests?.byStatus ?? {})) this.requests.inc({ status }, n);
    const refused = requests?.refused;
    if (refused?.beforeKyc) this.requests.inc({ status: 'refused-before-kyc' }, refused.beforeKyc);
    if (refused?.beforeAgreement) this.requests.inc({ status: 'refused-before-agreement' }, refused.beforeAgreement);
  }
}
