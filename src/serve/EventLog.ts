import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { EventTables, JournalTables, StoredEvent } from '../store/Store.js';
import type { WebhookEvent } from './webhookEvent.js';

/** A webhook event as recorded: what it said, and the digest of its body that names the delivery. */
export interface RecordedEvent extends WebhookEvent {
  /** The delivery's id (its `x-request-network-delivery`), or without one the first 32 hex digits of the SHA-256 of
   * the raw body. */
  id: string;
  /** When it was received (ISO). */
  at: string;
}

/**
 * The same delivery within this long (its delivery id, or its body when it carries none) is a retry of it: the service
 * retries, the sandbox sends twice.
 */
const SAME_DELIVERY_MS = 24 * 3_600_000;

/**
 * The webhook events received and not yet acted on, in the store before they are answered: an event answered 2xx is
 * acted on even after a crash, a `kill -9` or a power loss (its record is on disk before the answer). Acting on an
 * event marks it done; a mark lost with a crash only means the event is acted on again, which the journal makes
 * harmless. Holds no personal value: payer ids, statuses and account ids. The events not yet acted on are also kept
 * here, for the worker that acts on them.
 */
export class EventLog {
  private readonly pendingEvents = new Map<string, RecordedEvent>();
  /** The marks of done being written, one after the other. */
  private marking: Promise<void> = Promise.resolve();
  /** A mark of done that could not be written: the event is acted on again after a restart, which is harmless. */
  onDoneFailure: ((error: Error) => void) | undefined;

  private constructor(private readonly tables: EventTables) {}

  /**
   * The service's events in the store, with those an older version kept in `oldLog` (events.jsonl) imported once:
   * what was pending stays pending, and a delivery of the last day is still known as one.
   */
  static async open(
    tables: EventTables,
    journal: JournalTables,
    oldLog: string | undefined,
    now = Date.now(),
  ): Promise<EventLog> {
    const log = new EventLog(tables);
    if (oldLog !== undefined) await importOldLog(tables, journal, oldLog, now);
    await tables.prune(new Date(now - SAME_DELIVERY_MS).toISOString());
    await log.refresh();
    return log;
  }

  /** The digest that names a delivery that carries no delivery id: its body's. */
  static deliveryId(body: Buffer): string {
    return createHash('sha256').update(body).digest('hex').slice(0, 32);
  }

  /**
   * Records the event durably unless the same body came within the window: `duplicate` then, and nothing is
   * written. Rejects when the store refuses the write: the delivery must then not be answered 2xx.
   */
  async record(event: WebhookEvent, id: string, now = new Date()): Promise<'recorded' | 'duplicate'> {
    const recorded: RecordedEvent = { ...event, id, at: now.toISOString() };
    const sameSince = new Date(now.getTime() - SAME_DELIVERY_MS).toISOString();
    if (!(await this.tables.record({ id, at: recorded.at, body: JSON.stringify(event) }, sameSince)))
      return 'duplicate';
    this.pendingEvents.set(id, recorded);
    return 'recorded';
  }

  /**
   * The events not yet acted on, as the store has them: those another serve over the same database recorded, less
   * those it acted on. After the marks of done made here are written, so none comes back.
   */
  async refresh(): Promise<void> {
    await this.marking;
    const stored = await this.tables.pending();
    this.pendingEvents.clear();
    for (const event of stored) this.pendingEvents.set(event.id, eventOf(event));
  }

  /** How many events wait to be acted on (without a copy of them). */
  pendingCount(): number {
    return this.pendingEvents.size;
  }

  /** The events not yet acted on, oldest first. */
  pending(): RecordedEvent[] {
    return [...this.pendingEvents.values()];
  }

  /** Marks events acted on (or ignored for good). */
  done(ids: readonly string[], now = new Date()): void {
    const known = ids.filter((id) => this.pendingEvents.has(id));
    if (known.length === 0) return;
    for (const id of known) this.pendingEvents.delete(id);
    const at = now.toISOString();
    this.marking = this.marking
      .then(() => this.tables.done(known, at))
      .then(() => this.tables.prune(new Date(now.getTime() - SAME_DELIVERY_MS).toISOString()))
      .catch((error: unknown) => this.onDoneFailure?.(error as Error));
  }

  /** Once every mark of done made so far is written (or failed): before the store is closed. */
  settled(): Promise<void> {
    return this.marking;
  }
}

function eventOf(stored: StoredEvent): RecordedEvent {
  return { ...(JSON.parse(stored.body) as WebhookEvent), id: stored.id, at: stored.at };
}

/**
 * An older version's events.jsonl, once (the journal's settings note the file's size and time): each `ev` line an
 * event, each `done` line those acted on; a torn last line (a crash mid-write) was never answered 2xx, and is skipped.
 */
async function importOldLog(tables: EventTables, journal: JournalTables, path: string, now: number): Promise<void> {
  if (!existsSync(path)) return;
  const stat = statSync(path);
  const mark = `${stat.size}:${stat.mtimeMs}`;
  const setting = `imported ${path}`;
  if ((await journal.setting(setting)) === mark) return;
  const events = new Map<string, RecordedEvent & { doneAt?: string }>();
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    let line: { ev?: RecordedEvent; done?: string[]; at?: string };
    try {
      line = JSON.parse(raw);
    } catch {
      continue;
    }
    if (typeof line.ev?.id === 'string') events.set(line.ev.id, line.ev);
    else if (Array.isArray(line.done))
      for (const id of line.done) {
        const event = events.get(id);
        if (event !== undefined) event.doneAt = line.at ?? new Date(now).toISOString();
      }
  }
  const sameSince = new Date(now - SAME_DELIVERY_MS).toISOString();
  for (const { id, at, doneAt, ...event } of events.values()) {
    // What was acted on long ago is of no use: only a second copy of a recent delivery needs to be known.
    if (doneAt !== undefined && at < sameSince) continue;
    await tables.record({ id, at, body: JSON.stringify(event), ...(doneAt === undefined ? {} : { doneAt }) }, at);
  }
  await journal.write([{ setting, value: mark }]);
}
