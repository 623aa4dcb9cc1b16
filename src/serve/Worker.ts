import { Nap } from './Nap.js';
import type { JournalPlace } from '../journal/openJournal.js';
import type { Inbox } from '../inbox/Inbox.js';
import type { Store } from '../store/Store.js';
import { journalPayerStates, journalPayersNamed } from '../journal/RowJournal.js';
import type { RunContext } from '../pipeline/RunSession.js';
import type { CatchUp } from './CatchUp.js';
import { checkBankAccounts } from './checkBankAccounts.js';
import type { EventLog, RecordedEvent } from './EventLog.js';
import type { Invitations } from './Invitations.js';
import type { ServeMetrics } from './metrics.js';
import {
  type EventWork,
  eventPayerKey,
  IGNORE_TEXT,
  type IgnoreReason,
  ignoredAtSight,
  planEvents,
  type WaitingPayer,
} from './planEvents.js';

export interface WorkerSpec {
  inbox: Inbox;
  log: EventLog;
  metrics: ServeMetrics;
  /** The journal's file, read (never written) to match events to payers. */
  journal: JournalPlace;
  /** serve's store: each pass with work to do holds the service and key through it. */
  store: Store;
  /** A gap in taking webhooks to catch up, when there is one. */
  catchUp: CatchUp;
  recheckAfterMs: number;
  /** Milliseconds between looks at incoming/ when no event wakes the worker. */
  pollMs: number;
  /** The first pause after a stop (each next one doubles, up to 10 minutes). */
  pauseMs: number;
  /** After a check of bank accounts (the web page's Payers table reads its status.csv). */
  onChecked?: () => void;
  /** The payers' invitations and reminders, when serve sends mails: a loop of their own beside the API's. */
  mail?: Invitations | undefined;
  context: RunContext;
  say: (line: string) => void;
}

/** How long the worker lets events gather once one is pending and it was idle. */
const BATCH_MS = 200;
/**
 * Waiting rows a pass of a catch-up runs (at the default rate's half, 3 requests a row: about 2 minutes): between
 * two, the worker takes events and new files.
 */
const CATCH_UP_SLICE = 100;
/** A bank account made this long before a gap may still have been under the provider's check (usually a minute). */
const ACCOUNT_CHECK_BEFORE_MS = 10 * 60_000;

/** The longest pause after runs that keep stopping (the API down, the key refused). */
/** How soon work held up by another process's run is tried again. */
const HELD_RETRY_MS = 2000;
const MOST_PAUSE_MS = 600_000;

/**
 * The one place `serve` sends from, one thing at a time so that nothing fights over the state dir: the events
 * recorded first (each batch runs the waiting rows of the payers they name), then waiting rows due a recheck (the
 * cover for events never delivered), then new files of incoming/. An event wakes it at once; otherwise it looks
 * every `pollMs`. A run that stops pauses the worker, and the events stay recorded until one succeeds.
 */
export class Worker {
  private readonly nap = new Nap();
  private pauseMs: number;
  private pausedUntil = 0;
  private nextRecheck = 0;
  /** When the payers by state are next counted for the metrics. */
  private nextCount = 0;
  /** Why the worker is paused, while it is. */
  stopReason: string | undefined;
  /**
   * Check the accounts of a payer whose account was approved too, not only failed: with the web page on, a read then
   * says who is payable as it happens (two reads a payer, once).
   */
  checkApproved = false;
  /** When the last webhook was recorded; until one is, when serve started. */
  lastEventAt = Date.now();
  /** Payers with rows waiting, as last counted (at most once a minute). */
  waitingPayers = 0;
  /** Whether the worker is inside a run or a check now (for /healthz). */
  busy = false;
  /** Who holds the service and key while the worker waits its turn (the web page says so beside a file sent). */
  heldBy: string | undefined;

  constructor(private readonly spec: WorkerSpec) {
    this.pauseMs = spec.pauseMs;
  }

  wake(): void {
    this.nap.wake();
  }

  /** A webhook was recorded: taken at once. */
  recorded(): void {
    this.lastEventAt = Date.now();
    this.wake();
  }

  /**
   * Loops until the signal aborts; what is in flight then finishes (run() stops sending and flushes the journal). The
   * mails go beside, in a loop of their own: a mail waiting for the rate cap or a slow mail server never holds up a
   * webhook's run, and a run never holds up a mail. Both have ended when this returns.
   */
  async run(signal: AbortSignal): Promise<void> {
    const stopMail = new AbortController();
    const mailing = this.spec.mail?.run(AbortSignal.any([signal, stopMail.signal]));
    try {
      await this.loop(signal);
    } finally {
      stopMail.abort();
      await mailing;
    }
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const { log } = this.spec;
    while (!signal.aborted) {
      if (Date.now() >= this.pausedUntil) await this.pass(signal);
      this.spec.metrics.pendingEvents.set(log.pendingCount());
      this.spec.metrics.paused.set(this.paused() ? 1 : 0);
      if (this.paused() || (log.pendingCount() === 0 && !this.spec.catchUp.pending)) {
        const wait = this.paused() ? Math.min(this.spec.pollMs, this.pausedUntil - Date.now()) : this.spec.pollMs;
        await this.nap.sleep(wait, signal);
        // Events a moment apart go in one batch: each batch is a run of its own.
        if (log.pendingCount() > 0 && !signal.aborted) await this.nap.sleep(BATCH_MS, signal, false);
      }
    }
  }

  /** A slice of the catch-up: the rows waiting longest first, once counted at its start (for /healthz). */
  private async catchUpSlice(): Promise<void> {
    const { inbox, catchUp, metrics } = this.spec;
    const progress = catchUp.progress!;
    if (progress.done === 0 && progress.rows === 0) {
      catchUp.counted((await inbox.waiting?.countCheckedBefore(progress.since)) ?? 0);
      metrics.catchUpLeft.set(progress.rows);
    }
    const slice = await inbox.catchUpSlice(progress.since, catchUp.after, CATCH_UP_SLICE);
    // The waiting rows gone through: last, the bank accounts whose check may have ended in the gap.
    if (slice.next === undefined && inbox.going && !(await this.catchUpAccounts(progress))) return;
    catchUp.advance(slice.rows, slice.next);
    metrics.catchUpLeft.set(catchUp.pending ? Math.max(0, progress.rows - progress.done) : 0);
  }

  /**
   * The payers given a bank account from a little before the gap until serve came back, asked of the service (their
   * status and accounts: two reads each): a check that failed meanwhile lands in failed/ as its event would have had
   * it. False when the check stopped (the catch-up ends at a later pass).
   */
  private async catchUpAccounts(progress: { since: string; startedAt: string }): Promise<boolean> {
    const { store, journal } = this.spec;
    const from = new Date(Date.parse(progress.since) - ACCOUNT_CHECK_BEFORE_MS).toISOString();
    const ids = await store.journal(journal.service).payersWithNewAccounts(from, progress.startedAt);
    if (ids.length === 0) return true;
    return this.checkAccounts(ids, undefined, {
      what: "the catch-up's bank account check",
      meanwhile: 'it is tried again',
      done: (n) => `caught up ${n === 1 ? "1 payer's new bank account" : `${n} payers' new bank accounts`}`,
    });
  }

  /**
   * The payers' accounts asked of the service (checkBankAccounts), and said: what it found, or that it stopped
   * (the worker pauses then: false).
   */
  private async checkAccounts(
    ids: string[],
    signal: AbortSignal | undefined,
    words: { what: string; meanwhile: string; done: (payers: number) => string },
  ): Promise<boolean> {
    const { inbox, metrics, context } = this.spec;
    const check = await checkBankAccounts(inbox, ids, context);
    metrics.addRun(undefined, check.requests);
    if (check.stopped !== undefined || signal?.aborted) {
      this.spec.say(`serve: ${words.what} stopped (${check.stopped ?? 'interrupted'}); ${words.meanwhile}`);
      inbox.going = false;
      return false;
    }
    this.spec.onChecked?.();
    const fix = check.fixFile ? `: ${check.failed.length} to ask for other details in ${check.fixFile}` : '';
    this.spec.say(`serve: ${words.done(ids.length)}${fix}; results in ${check.results}/`);
    return true;
  }

  /** Whether the worker is waiting out a pause after a stop (for /healthz and the metrics). */
  paused(): boolean {
    return Date.now() < this.pausedUntil;
  }

  /**
   * One pass: files a stopped run left in processing/ first (their rows are not waiting yet), then the events, then
   * the waiting rows due a recheck, then new files. A stop, or anything unexpected, pauses the worker with backoff; the
   * HTTP side goes on recording events meanwhile.
   */
  private async pass(signal: AbortSignal): Promise<void> {
    const { inbox, log } = this.spec;
    inbox.going = true;
    inbox.heldBy = undefined;
    let trouble: string | undefined;
    try {
      // The events in the store, another serve's too: any serve over the same database may act on them.
      await log.refresh();
      // Counted whether events come or not: /healthz says when none has come for long while payers wait.
      await this.countPayers();
      const due = Date.now() >= this.nextRecheck;
      const catching = this.spec.catchUp.pending;
      if (log.pendingCount() > 0 || due || catching || inbox.hasFiles())
        await this.busily(() =>
          inbox.holding(this.spec.store, async () => {
            // Held now: what another serve acted on meanwhile is no longer pending.
            await log.refresh();
            await inbox.resume();
            if (inbox.going && log.pendingCount() > 0) await this.act(log.pending(), signal);
            if (inbox.going && catching) await this.catchUpSlice();
            if (inbox.going && due) {
              this.nextRecheck = Date.now() + Math.min(this.spec.recheckAfterMs, 60_000);
              await inbox.recheckDue();
            }
            if (inbox.going) await inbox.takeIncoming();
            // The marks of what was acted on land while the hold is still this serve's: another serve taking it next
            // finds them done.
            await log.settled();
          }),
        );
      if (!inbox.going) trouble = 'a run stopped (its summary above says why)';
    } catch (error) {
      trouble = `unexpected: ${(error as Error).message}`;
    }
    this.heldBy = undefined;
    if (trouble === undefined || signal.aborted) {
      this.pauseMs = this.spec.pauseMs;
      this.stopReason = undefined;
      return;
    }
    if (inbox.heldBy !== undefined) {
      // No fault: another process sends with the key (a person's run). The work waits its turn, tried again soon and
      // without backing off, since that run may end any moment; said once, and shown by /healthz meanwhile.
      // Another serve's advice to people (stop it first) is not for this one: it only waits.
      this.heldBy = String(inbox.heldBy).replace(/ Stop it first .*$/, '');
      const reason = `waiting its turn: ${this.heldBy}`;
      // Said once per holder: the seconds left of its lease change at every try.
      const holder = (text: string | undefined) => text?.replace(/\d+ s should/, 'N s should');
      if (holder(this.stopReason) !== holder(reason)) this.spec.say(`serve: ${reason}`);
      this.stopReason = reason;
      this.pausedUntil = Date.now() + Math.min(this.spec.pauseMs, HELD_RETRY_MS);
      return;
    }
    this.stopReason = trouble;
    this.pausedUntil = Date.now() + this.pauseMs;
    this.spec.say(`serve: ${trouble}; trying again in ${Math.round(this.pauseMs / 1000)} s`);
    this.pauseMs = Math.min(this.pauseMs * 2, MOST_PAUSE_MS);
  }

  private async busily(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    try {
      await work();
    } finally {
      this.busy = false;
    }
  }

  /**
   * One batch: every event recorded so far, its payers' waiting rows run once each, their accounts checked. The
   * events are marked done only once all of it ran to its end: a stop or a shutdown midway leaves them recorded.
   */
  private async act(events: RecordedEvent[], signal: AbortSignal): Promise<void> {
    const { inbox, log, metrics } = this.spec;
    // Only the events that may move a row look up their payer and its rows (found by the index: a batch costs the
    // same with 10 or 100,000 waiting); the rest, most of a first run's, are settled as they are.
    const options = { checkApproved: this.checkApproved };
    const looked = events.filter((event) => ignoredAtSight(event, options) === undefined);
    const journal = await journalPayersNamed(this.spec.journal, looked);
    await this.countPayers();
    const keys = looked.flatMap((event) => eventPayerKey(event, journal) ?? []);
    const waiting = new Map<string, WaitingPayer[]>();
    for (const place of await inbox.waitingOf(keys)) {
      const rows = waiting.get(place.payerKey) ?? [];
      if (!rows.some((row) => row.file === place.fileId))
        rows.push({ file: place.fileId, clientUserId: place.clientUserId });
      waiting.set(place.payerKey, rows);
    }
    const work = planEvents(events, journal, waiting, options);
    this.settleIgnored(work.ignored);
    const ignored = new Set(work.ignored.map((i) => i.event));
    const acting = events.filter((e) => !ignored.has(e));
    const stopped = () => signal.aborted || !inbox.going;
    for (const [file, ids] of work.runs) {
      if (stopped()) return;
      await inbox.runWaiting(file, [...ids]);
      if (stopped()) return;
    }
    if (work.bankChecks.size > 0) {
      if (stopped()) return;
      const checked = await this.checkAccounts([...work.bankChecks], signal, {
        what: 'the bank account check',
        meanwhile: 'its events wait',
        done: (n) => `checked ${n} payers' bank accounts`,
      });
      if (!checked) return;
    }
    // A hold lost on the way (another serve took over) leaves the events to the one that holds it now.
    if (stopped()) return;
    const now = Date.now();
    for (const event of acting) {
      metrics.events.inc({ event: eventLabel(event), settled: 'acted' });
      metrics.eventToDone.observe({ event: eventLabel(event) }, (now - Date.parse(event.at)) / 1000);
    }
    log.done(acting.map((e) => e.id));
  }

  /**
   * The payers by state and the payers waiting, for the metrics: a pass over every payer of the journal (a page at a
   * time), so at most once a minute, not at every batch of events.
   */
  private async countPayers(): Promise<void> {
    if (Date.now() < this.nextCount) return;
    this.nextCount = Date.now() + 60_000;
    const states = await journalPayerStates(this.spec.journal);
    for (const [state, count] of Object.entries(states)) this.spec.metrics.payers.set({ state }, count);
    this.waitingPayers = (await this.spec.inbox.waiting?.payerCount()) ?? 0;
    this.spec.metrics.waitingPayers.set(this.waitingPayers);
  }

  /** Events with nothing to act on: settled at once, one line a reason (a first run's agreements bring one a payer). */
  private settleIgnored(ignored: EventWork['ignored']): void {
    const byReason = new Map<IgnoreReason, number>();
    for (const { event, reason } of ignored) {
      this.spec.metrics.events.inc({ event: eventLabel(event), settled: reason });
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    }
    for (const [reason, count] of byReason)
      this.spec.say(`serve: ${count} event${count === 1 ? '' : 's'} ignored: ${IGNORE_TEXT[reason]}`);
    this.spec.log.done(ignored.map((i) => i.event.id));
  }
}

/** The events the tool acts on: the service's two, and its own from the payer's page. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set(['compliance.updated', 'payment_detail.updated', 'agreement.signed']);

/** An event's type as a metric label: the ones the tool knows, anything else as `other` (labels stay few). */
function eventLabel(event: RecordedEvent): string {
  return KNOWN_EVENTS.has(event.event) ? event.event : 'other';
}
