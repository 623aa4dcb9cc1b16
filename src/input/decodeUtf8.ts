import { isAscii, isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { InputError } from '../core/errors.js';

/**
 * Decodes a byte stream as strict UTF-8 and fails on the first invalid byte with its line and column,
 * rather than letting U+FFFD replacement characters slip into names and addresses sent to the API.
 * Strips a leading BOM and remembers that there was one.
 */
export class DecodeUtf8 extends Transform {
  hadBom = false;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  private line = 1;
  private column = 1;
  private first = true;

  constructor(private readonly source: string) {
    super({ readableObjectMode: false, decodeStrings: true, encoding: 'utf8' });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.first) {
      this.first = false;
      this.hadBom = chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
    }
    try {
      const text = this.decoder.decode(chunk, { stream: true });
      this.track(text);
      done(null, text);
    } catch (cause) {
      done(this.invalid(chunk, cause));
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      const text = this.decoder.decode();
      done(null, text);
    } catch (cause) {
      done(this.invalid(Buffer.alloc(0), cause));
    }
  }

  /**
   * Bytes checked as UTF-8 elsewhere and passed on undecoded: the line and column they move to, as if decoded here
   * (the column counts UTF-16 units, as decoded text does; a leading BOM is no character).
   */
  passed(bytes: Buffer): void {
    let from = 0;
    if (this.first) {
      this.first = false;
      this.hadBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      if (this.hadBom) from = 3;
    }
    let last = -1;
    for (let at = bytes.indexOf(10, from); at >= 0; at = bytes.indexOf(10, at + 1)) {
      this.line++;
      last = at;
    }
    const tail = bytes.subarray(last < 0 ? from : last + 1);
    const units = isAscii(tail) ? tail.length : tail.toString('utf8').length;
    this.column = last < 0 ? this.column + units : units + 1;
  }

  private track(text: string): void {
    // By the line breaks only (indexOf is native): a column is the characters after the last one, plus 1.
    let last = -1;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
      this.line++;
      last = at;
    }
    this.column = last < 0 ? this.column + text.length : text.length - last;
  }

  /** Finds where in this chunk decoding broke, to name the line and column. */
  private invalid(chunk: Buffer, cause: unknown): InputError {
    // A prefix that decodes (as a stream) stays decodable when shortened, so the first bad byte can be bisected.
    const decodes = (end: number) => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(chunk.subarray(0, end), { stream: true });
        return true;
      } catch {
        return false;
      }
    };
    let good = 0;
    let bad = chunk.length;
    while (bad - good > 1) {
      const mid = (good + bad) >>> 1;
      if (decodes(mid)) good = mid;
      else bad = mid;
    }
    // The longest prefix may end in the first bytes of a character the next byte breaks (`ç` as 0xe7 before `o`):
    // the bad character starts at its lead byte, not at the byte after it.
    if (!isUtf8(chunk.subarray(0, good))) {
      while (good > 0 && (chunk[good - 1]! & 0xc0) === 0x80) good--;
      if (good > 0 && chunk[good - 1]! >= 0xc0) good--;
    }
    this.track(new TextDecoder('utf-8').decode(chunk.subarray(0, good)).replace(/\uFFFD+$/, ''));
    const byte = chunk[good];
    const shown =
      byte === undefined ? 'an incomplete character at the end' : `byte 0x${byte.toString(16).padStart(2, '0')}`;
    return new InputError(this.source, `is not valid UTF-8 (${shown}): save the file as "CSV UTF-8"`, {
      line: this.line,
      column: this.column,
      cause,
    });
  }
}

const BREAK = /\r\n|\n|\r/g;

/** A line longer than textLines' limit: only its size was kept, never its text. */
export interface LongLine {
  bytes: number;
}

/**
 * The lines of a text stream, split as readline splits them (`\n`, `\r\n` or a lone `\r`; a last line without a
 * break still counts), pulled one at a time: the source is read only as lines are asked for, and an error of the
 * source is thrown here. Each chunk is searched once, from where the last break was, so a line spread over many
 * chunks costs its length, not its length times its chunks. A line past `limit` bytes (UTF-8) stops being kept at
 * once, is only counted to its end, and comes out as a LongLine: memory holds the current chunk and at most `limit`.
 */
export async function* textLines(
  text: AsyncIterable<string>,
  limit = Number.POSITIVE_INFINITY,
): AsyncGenerator<string | LongLine> {
  const line = new PartLine(limit);
  // A `\r` that ended the last chunk was a break; a `\n` starting this one is its second half, no line of its own.
  let afterCr = false;
  for await (const chunk of text) {
    if (chunk === '') continue;
    let start = afterCr && chunk.charCodeAt(0) === 10 ? 1 : 0;
    BREAK.lastIndex = start;
    for (let found = BREAK.exec(chunk); found !== null; found = BREAK.exec(chunk)) {
      yield line.end(chunk.slice(start, found.index));
      start = BREAK.lastIndex;
    }
    afterCr = chunk.charCodeAt(chunk.length - 1) === 13;
    if (start < chunk.length) line.add(chunk.slice(start));
  }
  if (line.open) yield line.end('');
}

/** The line being read across chunks: its parts while it is within the limit, only its size past it. */
class PartLine {
  private parts: string[] = [];
  private bytes = 0;
  private over = false;

  constructor(private readonly limit: number) {}

  get open(): boolean {
    return this.bytes > 0;
  }

  add(piece: string): void {
    this.bytes += Buffer.byteLength(piece);
    if (this.over) return;
    this.parts.push(piece);
    if (this.bytes > this.limit) {
      this.over = true;
      this.parts = [];
    }
  }

  end(piece: string): string | LongLine {
    // A line whole in one chunk, and short enough whatever its characters (a UTF-16 unit is at most 3 bytes of UTF-8).
    if (this.parts.length === 0 && !this.over && piece.length * 3 <= this.limit) return piece;
    this.add(piece);
    const done = this.over ? { bytes: this.bytes } : this.parts.join('');
    this.parts = [];
    this.bytes = 0;
    this.over = false;
    return done;
  }
}
