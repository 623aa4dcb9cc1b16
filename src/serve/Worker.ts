import type { Inbox } from '../inbox/Inbox.js';
import { journalPayerIndex } from '../journal/RowJournal.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { checkBankAccounts } from './checkBankAccounts.js';
import type { EventLog, RecordedEvent } from './EventLog.js';
import type { ServeMetrics } from './metrics.js';
import { IGNORE_TEXT, type IgnoreReason, planEvents } from './planEvents.js';
import type { WaitingRows } from './waitingRows.js';

export interface WorkerSpec {
  inbox: Inbox;
  log: EventLog;
  waiting: WaitingRows;
  metrics: ServeMetrics;
  /** The journal's file, read (never written) to match events to payers. */
  journalPath: string;
  recheckAfterMs: number;
  /** Milliseconds between looks at incoming/ when no event wakes the worker. */
  pollMs: number;
  context: RunContext;
  say: (line: string) => void;
}

/** After a run stopped (the API down, the key refused), the first pause; each next one doubles, up to the last. */
const PAUSES_MS = { first: 30_000, most: 600_000 };

/**
 * The one place `serve` sends from, one thing at a time so that nothing fights over the state dir: the events
 * recorded first (each batch runs the waiting rows of the payers they name), then waiting/ files due a recheck (the
 * cover for events never delivered), then new files of incoming/. An event wakes it at once; otherwise it looks
 * every `pollMs`. A run that stops pauses the worker, and the events stay recorded until one succeeds.
 */
export class Worker {
  private wakeUp: (() => void) | undefined;
  private pauseMs = PAUSES_MS.first;
  /** Whether the worker is inside a run or a check now (for /healthz). */
  busy = false;

  constructor(private readonly spec: WorkerSpec) {}

  wake(): void {
    this.wakeUp?.();
  }

  /** Loops until the signal aborts; what is in flight then finishes (run() stops sending and flushes the journal). */
  async run(signal: AbortSignal): Promise<void> {
    const { inbox, log } = this.spec;
    let nextRecheck = 0;
    let pausedUntil = 0;
    await this.busily(() => inbox.resume());
    while (!signal.aborted) {
      if (Date.now() >= pausedUntil) {
        inbox.going = true;
        await this.busily(async () => {
          if (log.pending().length > 0) await this.act(log.pending());
          if (inbox.going && Date.now() >= nextRecheck) {
            nextRecheck = Date.now() + Math.min(this.spec.recheckAfterMs, 60_000);
            await inbox.recheckDue();
          }
          if (inbox.going) await inbox.takeIncoming();
        });
        if (!inbox.going && !signal.aborted) {
          pausedUntil = Date.now() + this.pauseMs;
          this.spec.say(`serve: a run stopped; trying again in ${Math.round(this.pauseMs / 1000)} s`);
          this.pauseMs = Math.min(this.pauseMs * 2, PAUSES_MS.most);
        } else this.pauseMs = PAUSES_MS.first;
      }
      this.spec.metrics.pendingEvents.set(log.pending().length);
      const paused = Date.now() < pausedUntil;
      if (paused || log.pending().length === 0)
        await this.sleep(paused ? Math.min(this.spec.pollMs, pausedUntil - Date.now()) : this.spec.pollMs, signal);
    }
  }

  private async busily(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    try {
      await work();
    } finally {
      this.busy = false;
    }
  }

  /** One batch: every event recorded so far, its payers' waiting rows run once each, their accounts checked. */
  private async act(events: RecordedEvent[]): Promise<void> {
    const { inbox, log, metrics, context } = this.spec;
    const journal = await journalPayerIndex(this.spec.journalPath);
    for (const [state, count] of Object.entries(journal.states)) metrics.payers.set({ state }, count);
    const waiting = await this.spec.waiting.byPayer();
    metrics.waitingPayers.set(waiting.size);
    const work = planEvents(events, journal, waiting);
    const ignoredBy = new Map<IgnoreReason, number>();
    for (const { event, reason } of work.ignored) {
      metrics.events.inc({ event: eventLabel(event), settled: reason });
      ignoredBy.set(reason, (ignoredBy.get(reason) ?? 0) + 1);
    }
    // One line a reason and batch: a first run's agreements alone bring an event per payer.
    for (const [reason, count] of ignoredBy)
      this.spec.say(`serve: ${count} event${count === 1 ? '' : 's'} ignored: ${IGNORE_TEXT[reason]}`);
    log.done(work.ignored.map((i) => i.event.id));
    const acting = events.filter((e) => !work.ignored.some((i) => i.event === e));
    for (const [file, ids] of work.runs) {
      await inbox.runWaiting(file, [...ids]);
      if (!inbox.going) return;
    }
    if (work.bankChecks.size > 0) {
      const check = await checkBankAccounts(inbox, [...work.bankChecks], context);
      metrics.addRun(undefined, check.requests);
      if (check.stopped !== undefined) {
        this.spec.say(`serve: the bank account check stopped (${check.stopped}); its events wait for the next try`);
        inbox.going = false;
        return;
      }
      const fix = check.fixFile ? `: ${check.failed.length} to ask for other details in ${check.fixFile}` : '';
      this.spec.say(`serve: checked ${work.bankChecks.size} payers' bank accounts${fix}; results in ${check.results}/`);
    }
    const now = Date.now();
    for (const event of acting) {
      metrics.events.inc({ event: eventLabel(event), settled: 'acted' });
      metrics.eventToDone.observe({ event: eventLabel(event) }, (now - Date.parse(event.at)) / 1000);
    }
    log.done(acting.map((e) => e.id));
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      this.wakeUp = done;
    });
  }
}

/** An event's type as a metric label: the two the tool knows, anything else as `other` (labels stay few). */
function eventLabel(event: RecordedEvent): string {
  return event.event === 'compliance.updated' || event.event === 'payment_detail.updated' ? event.event : 'other';
}
