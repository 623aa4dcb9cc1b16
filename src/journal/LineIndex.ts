import { grown, HashIndex } from '../core/compactTables.js';
import { closeSync, createReadStream, fstatSync, openSync, readSync, writeSync } from 'node:fs';

// Lower case, as the keys are written (hex digests): the key comparison below is exact.
const KEY = /^[0-9a-f]{32}$/;

/**
 * The journal's lines by their call's key (32 hex digits), keeping in memory only where each call's line starts:
 * 20 to 30 bytes a call in typed arrays, outside the V8 heap, instead of every answer's ids and links in a Map on it
 * (a run of 100,000 payers makes 300,000 calls, in 250 MB). The key itself stays in the file: a probe whose hash
 * matches reads the line back and compares the whole key, so a call is never taken for another.
 */
export class LineIndex<L extends { k: string }> {
  private readonly index = new HashIndex();
  private offsets: Float64Array = new Float64Array(1024);

  /** `read` gives the line at an offset of the journal file, its key as the index knows it, or undefined. */
  constructor(private readonly read: (offset: number) => L | undefined) {}

  /** Whether `key` can name a call here at all. */
  static isKey(key: string): boolean {
    return KEY.test(key);
  }

  get size(): number {
    return this.index.size;
  }

  /** The call's latest line, read back from the file, and its entry; undefined when the call is not here. */
  find(key: string): { entry: number; offset: number; line: L } | undefined {
    let line: L | undefined;
    const entry = this.index.find(hashOf(key), (e) => {
      line = this.read(this.offsets[e]!);
      return line?.k === key;
    });
    return entry < 0 ? undefined : { entry, offset: this.offsets[entry]!, line: line! };
  }

  /** Adds a call whose latest line starts at `offset` (find() said it is not here); its entry. */
  add(key: string, offset: number): number {
    const entry = this.index.add(hashOf(key));
    if (entry >= this.offsets.length) this.offsets = grown(this.offsets, entry + 1);
    this.offsets[entry] = offset;
    return entry;
  }

  /** The call's latest line now starts at `offset`. */
  move(entry: number, offset: number): void {
    this.offsets[entry] = offset;
  }

  /** Where the entry's line starts. */
  offsetOf(entry: number): number {
    return this.offsets[entry]!;
  }

  /** Every entry, in the order of its line in the file (compaction copies them in one pass, reading nothing back). */
  entriesInFileOrder(): Uint32Array {
    const entries = new Uint32Array(this.index.size);
    for (let entry = 0; entry < entries.length; entry++) entries[entry] = entry;
    return entries.sort((a, b) => this.offsets[a]! - this.offsets[b]!);
  }

  /** Points every entry into a new file at once (compaction), by entry number. */
  replaceOffsets(offsets: Float64Array): void {
    this.offsets = offsets;
  }
}

/** The key's first 32 bits: it is a SHA-256, so they are already evenly spread. */
function hashOf(key: string): number {
  let hash = 0;
  for (let i = 0; i < 8; i++) hash = (hash << 4) | hexValue(key.charCodeAt(i));
  return hash >>> 0;
}

/** A lower-case hex digit's value (the key was checked to be made of them). */
function hexValue(code: number): number {
  return code <= 57 ? code - 48 : code - 87;
}

/** One line of the journal file and where it sits, so the journal can read it back later by offset. */
/**
 * A journal line. `k` is a hash naming the call (or the payer). `none`: a call the service certainly did not
 * carry out (a field error, a 429 given up on), so a re-run creates without asking first.
 */
export type Line =
  /** `a`: what a later run needs to settle the call if its answer never comes (a bank account: the ids before it). */
  | { k: string; s: 'sent'; a?: Record<string, string> }
  | { k: string; s: 'none' }
  | { k: string; s: 'done'; c: number; a?: Record<string, string> };

export interface JournalLine {
  text: string;
  /** Byte offset of the line's first byte, and its length in bytes without the newline. */
  offset: number;
  length: number;
}

/**
 * The lines of a file with their byte offsets (readline gives text only). Splits on `\n`; a last line without
 * one (a crash mid-write) is still given. Only the current chunk and a partial line are held.
 */
export async function* journalLines(path: string): AsyncGenerator<JournalLine> {
  let offset = 0;
  let pending: Buffer[] = [];
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, at);
      const bytes = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
      yield { text: bytes.toString('utf8'), offset, length: bytes.length };
      offset += bytes.length + 1;
      pending = [];
      from = at + 1;
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
  if (pending.length > 0) {
    const bytes = Buffer.concat(pending);
    yield { text: bytes.toString('utf8'), offset, length: bytes.length };
  }
}

/**
 * 128 bits of the call's SHA-256 key name it in the journal: as unique in practice as all 256, and it halves
 * the journal's size for large files.
 */
export function short(key: string): string {
  // Every call of the journal passes here: the key the journal makes itself (32 hex digits) is returned as it is.
  if (key.length === 32 && !key.startsWith('po-')) return key;
  return (key.startsWith('po-') ? key.slice(3) : key).slice(0, 32);
}

/** write(2) until every byte is out (a regular file may take fewer); the number of bytes written. */
export function writeAll(fd: number, bytes: Buffer): number {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  return done;
}

/**
 * writeAll for text of `bytes` bytes in UTF-8: written as it is, without a Buffer of its own, unless write(2) takes
 * only part of it.
 */
export function writeAllText(fd: number, text: string, bytes: number): number {
  const written = writeSync(fd, text);
  return written === bytes ? written : written + writeAll(fd, Buffer.from(text).subarray(written));
}

export function parse(text: string): Line | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const line = value as Partial<{ k: unknown; s: unknown; c: unknown; a: unknown }>;
  if (typeof line.k !== 'string' || line.k === '') return undefined;
  const answerOk =
    line.a === undefined ||
    (line.a !== null && typeof line.a === 'object' && Object.values(line.a).every((v) => typeof v === 'string'));
  if (line.s === 'sent')
    return line.a !== undefined && answerOk
      ? { k: line.k, s: 'sent', a: line.a as Record<string, string> }
      : { k: line.k, s: 'sent' };
  if (line.s === 'none') return { k: line.k, s: 'none' };
  if (line.s !== 'done' || typeof line.c !== 'number') return undefined;
  if (!answerOk) return undefined;
  return { k: line.k, s: 'done', c: line.c, ...(line.a ? { a: line.a as Record<string, string> } : {}) };
}

export function endsWithNewline(path: string): boolean {
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
