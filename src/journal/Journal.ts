import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, fsync, fsyncSync, openSync, readSync, renameSync, chmodSync } from 'node:fs';
import {
  endsWithNewline,
  journalLines,
  type Line,
  LineIndex,
  parse,
  short,
  writeAll,
  writeAllText,
} from './LineIndex.js';

/** What the journal knows of one call: sent and maybe in doubt, or done with the answer that filled the result. */
export type JournalEntry =
  | { state: 'sent'; answer?: Record<string, string> }
  | { state: 'done'; status: number; answer: Record<string, string> };

export interface JournalLoad {
  entries: number;
  lines: number;
  /** Lines that could not be read (a crash mid-write): skipped, never fatal. */
  corrupt: number;
  /** Its last line is the mark a run leaves when it closes the journal. */
  closedCleanly: boolean;
  ms: number;
}

/**
 * The journal of calls that makes re-runs and crashes safe. Each call is written before it goes out
 * (`sent`) and after its answer (`done`), as JSON lines appended with write(2). A `sent` line is written at once,
 * so a call the process is killed under is always in doubt; other lines are written together once the work in
 * hand is done (the callbacks queued when they were added, such as the work on an answer), or with a `sent` line
 * before that: one write(2) for the lines an answer adds, not one each. A kill loses at most the lines of that
 * work, as it would lose the answers still on their way: each leaves its call in doubt or its payer unrecorded,
 * which the next run settles by reading the service.
 * An fsync at least every second and at close covers the machine going down. The timed fsync
 * runs on libuv's thread pool, not on the event loop: on a busy disk one takes several milliseconds, and writes
 * (appends to the page cache) go on meanwhile; the one at close is synchronous and covers everything.
 * Holds no personal data: calls are named by their key (a SHA-256), answers are ids, links and statuses.
 *
 * In memory it keeps only where each call's latest line starts (LineIndex); what a call answered is read back from
 * the file when asked. Memory grows by about 20 bytes a call, not by its answer (a 100,000-row run must fit in 250 MB).
 */
export class Journal {
  private readonly lines = new LineIndex<Line>((offset) => this.readLine(offset));
  /** Calls whose line could not be written (the journal failed): this run still replays them from here. */
  private readonly unwritten = new Map<string, JournalEntry>();
  private fd: number | undefined;
  private readFd: number | undefined;
  /** Where the next line starts: the bytes in the file, and the lines waiting to be written after them. */
  private end = 0;
  /** Bytes in the file; the lines from here to `end` are in `pending`. Unbounded while the file is read at open. */
  private written = Number.POSITIVE_INFINITY;
  /** Lines recorded but not yet written, with what they say of their call (kept in memory if the write fails). */
  private pending: Array<{ key: string; text: string; entry: JournalEntry }> = [];
  /** A flush is queued for when the work in hand is done. */
  private flushQueued = false;
  private dirty = false;
  /** A timed fsync is out on the thread pool: the next waits for it, and close() keeps the file open until it ends. */
  private syncing = false;
  private closeWhenSynced: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private buffer = Buffer.alloc(1024);

  /**
   * The run before this one closed the journal: every line it wrote reached the disk (its close is fsynced). After a
   * crash, a kill or a machine going down, the last second's lines may be gone, `sent` lines among them.
   */
  closedCleanly = false;

  private constructor(readonly path: string) {}

  /** Reads the journal back (skipping corrupt lines), compacts it when mostly superseded, and opens it for appending. */
  static async open(path: string): Promise<{ journal: Journal; load: JournalLoad }> {
    const journal = new Journal(path);
    let load: JournalLoad;
    try {
      load = await journal.read();
      journal.closedCleanly = load.closedCleanly && load.corrupt === 0;
      // Each call leaves a `sent` and a `done` line: rewrite once at least half the lines are superseded.
      if (load.lines > 1000 && load.lines >= 2 * load.entries) await journal.compact();
      journal.fd = openSync(path, 'a', 0o600);
      chmodSync(path, 0o600);
      journal.end = fstatSync(journal.fd).size;
      // A crash mid-write leaves a line without its newline: end it, so the next record starts a line of its own.
      if (load.lines > 0 && !endsWithNewline(path)) journal.end += writeAll(journal.fd, Buffer.from('\n'));
      journal.written = journal.end;
      journal.readFd ??= openSync(path, 'r');
    } catch (error) {
      journal.close();
      throw error;
    }
    journal.timer = setInterval(() => journal.syncInBackground(), 1000);
    journal.timer.unref();
    openJournals.add(journal);
    if (!flushingOnExit) process.on('exit', flushOpenJournals);
    flushingOnExit = true;
    return { journal, load };
  }

  get(callKey: string): JournalEntry | undefined {
    const key = short(callKey);
    const kept = this.unwritten.get(key);
    if (kept !== undefined) return kept;
    if (!LineIndex.isKey(key)) return undefined;
    const line = this.lines.find(key)?.line;
    // Reading a line still waiting writes it first: if that write failed, what it said is kept in memory.
    if (line === undefined) return this.unwritten.get(key);
    if (line.s === 'none') return undefined;
    if (line.s === 'done') return { state: 'done', status: line.c, answer: line.a ?? {} };
    return line.a === undefined ? { state: 'sent' } : { state: 'sent', answer: line.a };
  }

  get size(): number {
    return this.lines.size + this.unwritten.size;
  }

  /**
   * Records the call as sent. Gives its place in the journal, for done(): then its line is moved without being
   * read back from the file (a read per call otherwise).
   */
  sent(callKey: string, note?: Record<string, string>): number | undefined {
    const key = short(callKey);
    const found = LineIndex.isKey(key) ? this.lines.find(key) : undefined;
    // After the read: one of a line still waiting may have failed to write, and left what it said in memory.
    if (found?.line.s === 'done' || this.unwritten.get(key)?.state === 'done') return undefined;
    const line: Line = note === undefined ? { k: key, s: 'sent' } : { k: key, s: 'sent', a: note };
    const entry: JournalEntry = note === undefined ? { state: 'sent' } : { state: 'sent', answer: note };
    const place = this.record(key, line, entry, found?.entry);
    // Before the call goes out; the lines waiting go along in the same write.
    this.flush();
    return place;
  }

  /** Records the call's answer; `place` is what sent() gave for it, if it is known. */
  done(callKey: string, status: number, answer: Record<string, string>, place?: number): void {
    const key = short(callKey);
    const line: Line =
      Object.keys(answer).length > 0 ? { k: key, s: 'done', c: status, a: answer } : { k: key, s: 'done', c: status };
    const entry = place ?? (LineIndex.isKey(key) ? this.lines.find(key)?.entry : undefined);
    this.record(key, line, { state: 'done', status, answer }, entry);
  }

  /**
   * Records that the call certainly changed nothing (a field error, a 429 given up on): neither done nor in doubt.
   * A call already done stays done; a line that cannot be written leaves the call in doubt, the safe side.
   */
  notDone(callKey: string, place?: number): void {
    const key = short(callKey);
    if (!LineIndex.isKey(key)) return;
    const found = place === undefined ? this.lines.find(key) : undefined;
    if (found?.line.s === 'done') return;
    const entry = place ?? found?.entry;
    if (entry === undefined) return; // never recorded: nothing to take back
    const offset = this.end;
    // Lost in a failed write, the line leaves the call in doubt: the safe side.
    if (this.append(key, { k: key, s: 'none' }, { state: 'sent' })) this.lines.move(entry, offset);
  }

  /**
   * Called once, with the first write error (disk full, permission). The journal then writes nothing more, and a
   * call it could not record must not go out: the run stops sending. Never thrown into a call that already succeeded:
   * its answer must still reach results.csv.
   */
  onFailure: ((error: Error) => void) | undefined;
  private failure: Error | undefined;

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error as Error;
    this.onFailure?.(this.failure);
  }

  /** Writes the lines waiting in memory; a failed write keeps what they say in `unwritten` for this run. */
  flush(): void {
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    if (this.fd !== undefined && this.failure === undefined) {
      let text = '';
      for (const line of lines) text += line.text;
      try {
        this.written += writeAllText(this.fd, text, this.end - this.written);
        this.dirty = true;
        return;
      } catch (error) {
        this.fail(error);
      }
    }
    for (const line of lines) this.unwritten.set(line.key, line.entry);
    this.end = this.written;
  }

  /** Flushes to disk now. */
  sync(): void {
    this.flush();
    if (this.fd === undefined || !this.dirty) return;
    try {
      fsyncSync(this.fd);
    } catch (error) {
      this.fail(error);
    }
    this.dirty = false;
  }

  /** The timed flush: what was written so far goes to disk without holding up the event loop. */
  private syncInBackground(): void {
    this.flush();
    const fd = this.fd;
    if (fd === undefined || !this.dirty || this.syncing || this.failure) return;
    this.dirty = false;
    this.syncing = true;
    fsync(fd, (error) => {
      this.syncing = false;
      // Reported even after close(): on Linux an fsync after a failed one can succeed with the lines still lost.
      if (error) this.fail(error);
      if (this.closeWhenSynced === fd) {
        // close() came meanwhile and made its own fsync: only the descriptor is left to release.
        this.closeWhenSynced = undefined;
        closeSync(fd);
      }
    });
  }

  close(): void {
    clearInterval(this.timer);
    openJournals.delete(this);
    // The last line says the journal is whole, unless a line of this run could not be written.
    if (this.fd !== undefined && this.unwritten.size === 0) this.done(CLOSED, 200, {});
    this.flush();
    if (this.readFd !== undefined) closeSync(this.readFd);
    this.readFd = undefined;
    if (this.fd === undefined) return;
    this.dirty = true; // a background fsync may still be out: this one covers every line, whatever it did
    this.sync();
    // Not closed under a background fsync still running (its descriptor could be reused by another file).
    if (this.syncing) this.closeWhenSynced = this.fd;
    else closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Appends the line and indexes where it went, giving the call's entry; a call whose line cannot be written is
   * kept in memory instead (no entry).
   */
  private record(key: string, line: Line, entry: JournalEntry, known: number | undefined): number | undefined {
    const offset = this.end;
    if (!this.append(key, line, entry) || !LineIndex.isKey(key)) {
      this.unwritten.set(key, entry);
      return undefined;
    }
    if (known === undefined) return this.lines.add(key, offset);
    this.lines.move(known, offset);
    return known;
  }

  /** Adds one line to those waiting to be written; false once writing has failed. */
  private append(key: string, line: Line, entry: JournalEntry): boolean {
    if (this.fd === undefined || this.failure) return false;
    const text = lineText(line);
    this.pending.push({ key, text, entry });
    this.end += Buffer.byteLength(text);
    if (!this.flushQueued) {
      // Once the callbacks queued now have run: the lines the work on an answer adds go out together, right
      // after it. An immediate would wait for the next turn of the event loop, and keep them in memory, where a
      // kill loses them, that much longer.
      this.flushQueued = true;
      process.nextTick(() => {
        this.flushQueued = false;
        this.flush();
      });
    }
    return true;
  }

  /** The line starting at `offset`, with its key as the index knows it; undefined if it cannot be read. */
  private readLine(offset: number): Line | undefined {
    if (offset >= this.written) this.flush();
    if (this.readFd === undefined || offset >= this.written) return undefined;
    try {
      for (;;) {
        const read = readSync(this.readFd, this.buffer, 0, this.buffer.length, offset);
        const end = this.buffer.subarray(0, read).indexOf(0x0a);
        if (end < 0 && read === this.buffer.length) {
          this.buffer = Buffer.alloc(this.buffer.length * 2); // a line longer than the buffer: read it again whole
          continue;
        }
        const line = parse(this.buffer.toString('utf8', 0, end < 0 ? read : end));
        return line && { ...line, k: short(line.k) };
      }
    } catch {
      return undefined;
    }
  }

  private async read(): Promise<JournalLoad> {
    const started = performance.now();
    let lines = 0;
    let corrupt = 0;
    let last = '';
    if (existsSync(this.path)) {
      this.readFd = openSync(this.path, 'r');
      for await (const { text, offset } of journalLines(this.path)) {
        if (text === '' || text === '\r') continue;
        lines++;
        const line = parse(text);
        const key = line === undefined ? '' : short(line.k);
        if (line === undefined || !LineIndex.isKey(key)) {
          corrupt++;
          continue;
        }
        last = key;
        // The mark of a clean close is about the file, not a call: not indexed, and gone at the next compaction.
        if (key === CLOSED_KEY) {
          lines--;
          continue;
        }
        const found = this.lines.find(key);
        // A later line wins, except that a `sent` after a `done` (an old line) does not make the call in doubt again.
        if (found === undefined) this.lines.add(key, offset);
        else if (line.s === 'done' || found.line.s !== 'done') this.lines.move(found.entry, offset);
      }
    }
    return {
      entries: this.lines.size,
      lines,
      corrupt,
      closedCleanly: last === CLOSED_KEY,
      ms: Math.round(performance.now() - started),
    };
  }

  /**
   * Rewrites the journal with one line per call, atomically, so nightly re-runs do not grow it without bound.
   * Reads the file once more and copies each call's latest line, so no answer is held in memory: the lines to keep
   * are the ones the index points at, met in file order.
   */
  private async compact(): Promise<void> {
    const temp = `${this.path}.compact`;
    const fd = openSync(temp, 'w', 0o600);
    const keep = this.lines.entriesInFileOrder();
    // The index keeps pointing into the old file until the new one replaces it.
    const moved = new Float64Array(keep.length);
    try {
      let next = 0;
      let written = 0;
      let chunk = '';
      for await (const { text, offset } of journalLines(this.path)) {
        if (next === keep.length) break;
        const entry = keep[next]!;
        if (offset !== this.lines.offsetOf(entry)) continue; // superseded by a later line, or unreadable
        next++;
        const line = parse(text)!; // read and indexed by read(), so it parses
        const kept = line.k === short(line.k) ? text.trimEnd() : JSON.stringify({ ...line, k: short(line.k) });
        moved[entry] = written;
        written += Buffer.byteLength(kept) + 1;
        chunk += `${kept}\n`;
        if (chunk.length > 1 << 20) {
          writeAll(fd, Buffer.from(chunk));
          chunk = '';
        }
      }
      if (next !== keep.length) throw new Error(`journal ${this.path} changed while it was being compacted`);
      writeAll(fd, Buffer.from(chunk));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    this.lines.replaceOffsets(moved);
    if (this.readFd !== undefined) closeSync(this.readFd);
    this.readFd = openSync(this.path, 'r');
  }
}

/**
 * The line as JSON.stringify writes it, members in the same order. Only the answer goes through JSON.stringify:
 * every call writes a line or two, and the rest is a key (hex digits, once checked) and a status.
 */
function lineText(line: Line): string {
  const k = LineIndex.isKey(line.k) ? `"${line.k}"` : JSON.stringify(line.k);
  const a = line.s === 'none' || line.a === undefined ? '' : `,"a":${JSON.stringify(line.a)}`;
  if (line.s !== 'done') return `{"k":${k},"s":"${line.s}"${a}}\n`;
  return `{"k":${k},"s":"done","c":${JSON.stringify(line.c)}${a}}\n`;
}

const openJournals = new Set<Journal>();
let flushingOnExit = false;

/**
 * A process that exits without closing its journal (a second Ctrl-C, an error nothing caught) runs no more
 * callbacks: the lines still waiting are written here, as they would have been at once before they waited.
 */
/** The key of the line close() writes last. */
const CLOSED = createHash('sha256').update('the journal: closed').digest('hex');
const CLOSED_KEY = short(CLOSED);

function flushOpenJournals(): void {
  for (const journal of openJournals) journal.flush();
}
