import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readSync, renameSync, writeSync, chmodSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** What the journal knows of one call: sent and maybe in doubt, or done with the answer that filled the result. */
export type JournalEntry = { state: 'sent' } | { state: 'done'; status: number; answer: Record<string, string> };

/** A journal line. `k` is the call's Idempotency-Key, itself a hash of step, clientUserId and request body. */
type Line = { k: string; s: 'sent' } | { k: string; s: 'done'; c: number; a?: Record<string, string> };

export interface JournalLoad {
  entries: number;
  lines: number;
  /** Lines that could not be read (a crash mid-write): skipped, never fatal. */
  corrupt: number;
  ms: number;
}

/**
 * The journal of calls that makes re-runs and crashes safe (issue 4). Each call is written before it goes out
 * (`sent`) and after its answer (`done`), as JSON lines appended with write(2): that survives the process being
 * killed at any point; an fsync at least every second and at close covers the machine going down.
 * Holds no personal data: calls are named by their key (a SHA-256), answers are ids, links and statuses.
 */
export class Journal {
  private readonly entries = new Map<string, JournalEntry>();
  private fd: number | undefined;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(readonly path: string) {}

  /** Reads the journal back (skipping corrupt lines), compacts it when mostly superseded, and opens it for appending. */
  static async open(path: string): Promise<{ journal: Journal; load: JournalLoad }> {
    const journal = new Journal(path);
    const load = await journal.read();
    // Each call leaves a `sent` and a `done` line: rewrite once at least half the lines are superseded.
    if (load.lines > 1000 && load.lines >= 2 * load.entries) journal.compact();
    journal.fd = openSync(path, 'a', 0o600);
    chmodSync(path, 0o600);
    // A crash mid-write leaves a line without its newline: end it, so the next record starts a line of its own.
    if (load.lines > 0 && !endsWithNewline(path)) writeSync(journal.fd, '\n');
    journal.timer = setInterval(() => journal.sync(), 1000);
    journal.timer.unref();
    return { journal, load };
  }

  get(key: string): JournalEntry | undefined {
    return this.entries.get(short(key));
  }

  get size(): number {
    return this.entries.size;
  }

  sent(callKey: string): void {
    const key = short(callKey);
    if (this.entries.get(key)?.state === 'done') return;
    this.entries.set(key, { state: 'sent' });
    this.append({ k: key, s: 'sent' });
  }

  done(callKey: string, status: number, answer: Record<string, string>): void {
    const key = short(callKey);
    this.entries.set(key, { state: 'done', status, answer });
    this.append(Object.keys(answer).length > 0 ? { k: key, s: 'done', c: status, a: answer } : { k: key, s: 'done', c: status });
  }

  /** The first write error, if any: the journal then stops writing, and the run warns that re-runs may resend. */
  failure: Error | undefined;

  /** Flushes to disk now. */
  sync(): void {
    if (this.fd === undefined || !this.dirty) return;
    try {
      fsyncSync(this.fd);
    } catch (error) {
      this.failure ??= error as Error;
    }
    this.dirty = false;
  }

  close(): void {
    clearInterval(this.timer);
    if (this.fd === undefined) return;
    this.sync();
    closeSync(this.fd);
    this.fd = undefined;
  }

  private append(line: Line): void {
    if (this.fd === undefined || this.failure) return;
    try {
      writeSync(this.fd, `${JSON.stringify(line)}\n`);
      this.dirty = true;
    } catch (error) {
      // Never throw into a call that already succeeded: its answer must still reach results.csv.
      this.failure = error as Error;
    }
  }

  private async read(): Promise<JournalLoad> {
    const started = performance.now();
    let lines = 0;
    let corrupt = 0;
    if (existsSync(this.path)) {
      const reader = createInterface({ input: createReadStream(this.path, 'utf8'), crlfDelay: Infinity });
      for await (const text of reader) {
        if (text === '') continue;
        lines++;
        const line = parse(text);
        if (line === undefined) {
          corrupt++;
          continue;
        }
        if (line.s === 'done') this.entries.set(line.k, { state: 'done', status: line.c, answer: line.a ?? {} });
        else if (this.entries.get(line.k)?.state !== 'done') this.entries.set(line.k, { state: 'sent' });
      }
    }
    return { entries: this.entries.size, lines, corrupt, ms: Math.round(performance.now() - started) };
  }

  /** Rewrites the journal with one line per call, atomically, so nightly re-runs do not grow it without bound. */
  private compact(): void {
    const temp = `${this.path}.compact`;
    const fd = openSync(temp, 'w', 0o600);
    let chunk = '';
    for (const [k, entry] of this.entries) {
      const line: Line = entry.state === 'done' ? { k, s: 'done', c: entry.status, ...(Object.keys(entry.answer).length ? { a: entry.answer } : {}) } : { k, s: 'sent' };
      chunk += `${JSON.stringify(line)}\n`;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, this.path);
  }
}

/**
 * 128 bits of the call's SHA-256 key name it in the journal: as unique in practice as all 256, and it halves
 * the journal's size and memory for large files.
 */
function short(key: string): string {
  return key.replace(/^po-/, '').slice(0, 32);
}

function parse(text: string): Line | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const line = value as Partial<{ k: unknown; s: unknown; c: unknown; a: unknown }>;
  if (typeof line.k !== 'string' || line.k === '') return undefined;
  if (line.s === 'sent') return { k: line.k, s: 'sent' };
  if (line.s !== 'done' || typeof line.c !== 'number') return undefined;
  if (line.a !== undefined && (line.a === null || typeof line.a !== 'object' || Object.values(line.a).some((v) => typeof v !== 'string'))) return undefined;
  return { k: line.k, s: 'done', c: line.c, ...(line.a ? { a: line.a as Record<string, string> } : {}) };
}

function endsWithNewline(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}
