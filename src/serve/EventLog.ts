import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { WebhookEvent } from './webhookEvent.js';

/** A webhook event as recorded: what it said, and the digest of its body that names the delivery. */
export interface RecordedEvent extends WebhookEvent {
  /** The first 32 hex digits of the SHA-256 of the raw body. */
  id: string;
  /** When it was received (ISO). */
  at: string;
}

/** The same body within this long is the same delivery sent again (the service retries, the sandbox sends twice). */
const SAME_DELIVERY_MS = 24 * 3_600_000;
/** At open, a log over this size is written again with only what is still needed. */
const COMPACT_BYTES = 1 << 20;

type Line = { ev: RecordedEvent } | { done: string[]; at: string };

/**
 * The webhook events received and not yet acted on, on disk before they are answered: an event answered 2xx is
 * acted on even after a crash or `kill -9` (its line was fsynced before the answer). Acting on an event appends a
 * `done` line; one lost with a crash only means the event is acted on again, which the journal makes harmless.
 * Holds no personal value: payer ids, statuses and account ids. One writer: the process holding the inbox's lock.
 */
export class EventLog {
  private readonly pendingEvents = new Map<string, RecordedEvent>();
  /** Delivery id -> when it was received, for the window in which a second copy is the same delivery. */
  private readonly seen = new Map<string, number>();
  private fd: number | undefined;
  /** Bytes appended since the file was last written whole: past compactBytes it is written whole again. */
  private appended = 0;

  private constructor(
    private readonly path: string,
    private readonly compactBytes: number,
  ) {}

  /** `compactBytes`: past this size the log is written whole again (at open, and as it grows). */
  static open(path: string, now = Date.now(), compactBytes = COMPACT_BYTES): EventLog {
    const log = new EventLog(path, compactBytes);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const existed = existsSync(path);
    const text = existed ? readFileSync(path, 'utf8') : '';
    for (const raw of text.split('\n')) log.replay(raw);
    for (const [id, at] of log.seen) if (now - at >= SAME_DELIVERY_MS) log.seen.delete(id);
    if (Buffer.byteLength(text) > compactBytes) log.compact();
    log.fd = openSync(path, 'a', 0o600);
    // A new file's name must survive a power loss too, not only its lines.
    if (!existed) syncFolder(dirname(path));
    // A crash mid-write leaves a line without its end: the next one starts a line of its own.
    const torn = text.length > 0 && !text.endsWith('\n') && Buffer.byteLength(text) <= compactBytes;
    if (torn) writeSync(log.fd, '\n');
    return log;
  }

  /** The digest that names a delivery: its body's. */
  static deliveryId(body: Buffer): string {
    return createHash('sha256').update(body).digest('hex').slice(0, 32);
  }

  /**
   * Records the event durably (written and fsynced) unless the same body came within the window: `duplicate` then,
   * and nothing is written. Throws when the disk refuses the write: the delivery must then not be answered 2xx.
   */
  record(event: WebhookEvent, id: string, now = new Date()): 'recorded' | 'duplicate' {
    const before = this.seen.get(id);
    if (before !== undefined && now.getTime() - before < SAME_DELIVERY_MS) return 'duplicate';
    const recorded: RecordedEvent = { ...event, id, at: now.toISOString() };
    this.append({ ev: recorded }, true);
    this.pendingEvents.set(id, recorded);
    this.seen.set(id, now.getTime());
    return 'recorded';
  }

  /** The events not yet acted on, oldest first. */
  pending(): RecordedEvent[] {
    return [...this.pendingEvents.values()];
  }

  /** Marks events acted on (or ignored for good). Not fsynced: one lost is only acted on again. */
  done(ids: readonly string[], now = new Date()): void {
    const known = ids.filter((id) => this.pendingEvents.has(id));
    if (known.length === 0) return;
    this.append({ done: known, at: now.toISOString() }, false);
    for (const id of known) this.pendingEvents.delete(id);
    if (this.appended > this.compactBytes) this.compactOpen(now.getTime());
  }

  /** A long-running process's log, written whole again with what is still needed, and reopened. */
  private compactOpen(now: number): void {
    if (this.fd !== undefined) closeSync(this.fd);
    for (const [id, at] of this.seen) if (now - at >= SAME_DELIVERY_MS) this.seen.delete(id);
    this.compact();
    this.fd = openSync(this.path, 'a', 0o600);
  }

  close(): void {
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }

  private append(line: Line, durable: boolean): void {
    if (this.fd === undefined) throw new Error(`the event log ${this.path} is closed`);
    this.appended += writeSync(this.fd, `${JSON.stringify(line)}\n`);
    if (durable) fsyncSync(this.fd);
  }

  /** One line of the file; a torn last line (a crash mid-write) was never answered 2xx, so it is skipped. */
  private replay(raw: string): void {
    if (raw.trim() === '') return;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      return;
    }
    if ('ev' in line && typeof line.ev?.id === 'string') {
      this.pendingEvents.set(line.ev.id, line.ev);
      this.seen.set(line.ev.id, Date.parse(line.ev.at) || 0);
    } else if ('done' in line && Array.isArray(line.done)) {
      for (const id of line.done) this.pendingEvents.delete(id);
    }
  }

  /** The pending events and the deliveries still inside the window, written whole beside the log and renamed over it. */
  private compact(): void {
    const keep: string[] = [];
    for (const ev of this.pendingEvents.values()) keep.push(JSON.stringify({ ev }));
    const settled = [...this.seen.keys()].filter((id) => !this.pendingEvents.has(id));
    // A settled delivery is kept as its id and time only: enough to know a second copy.
    for (const id of settled) {
      const at = new Date(this.seen.get(id)!).toISOString();
      keep.push(JSON.stringify({ ev: { id, at, event: 'settled' } }), JSON.stringify({ done: [id], at }));
    }
    const temp = `${this.path}.compact`;
    writeFileSync(temp, keep.length === 0 ? '' : `${keep.join('\n')}\n`, { mode: 0o600 });
    const fd = openSync(temp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, this.path);
    syncFolder(dirname(this.path));
    this.appended = 0;
  }
}

/** fsync of a folder: a file created or renamed in it is there after a power loss. */
function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
