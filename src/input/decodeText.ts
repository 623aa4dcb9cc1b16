import { isAscii, isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { advice, type Readers } from '../core/advice.js';
import { InputError } from '../core/errors.js';
import { DecodeUtf16 } from './decodeUtf16.js';
import { DecodeUtf8 } from './decodeUtf8.js';
import { ENCODING_NAMES, type Guess, guessEncoding, singleByteDecoder } from './encodings.js';
import type { CsvDialect, TextEncoding } from './InputFile.js';

const LABELS: Record<string, string> = {
  'utf-16le': 'UTF-16 (little-endian, from its byte order mark)',
  'utf-16be': 'UTF-16 (big-endian, from its byte order mark)',
  'windows-1252': 'Windows-1252 (what Excel on Windows writes for "CSV (Comma delimited)")',
  macintosh: 'Mac Roman (what Excel for Mac writes for "CSV")',
  'iso-8859-2': 'ISO-8859-2 (Central European)',
  'iso-8859-15': 'ISO-8859-15 (Western European)',
};

/** How to read a file that turns out not to be UTF-8. */
export interface DecodeOptions {
  /** The file itself, read once more to guess its encoding from all of its bytes. Without it: Windows-1252. */
  path?: string | undefined;
  /** `--encoding`: what a file that is not UTF-8 is read as, instead of a guess (`utf-8`: refuse it). */
  encoding?: string | undefined;
  /** A second reading: the encoding the first one found, used from the first byte. */
  known?: TextEncoding | undefined;
  /** Who reads what is said of the file: its advice in their words. */
  readers?: Readers | undefined;
}

/** The encoding a UTF-16 byte order mark announces; undefined without one (a UTF-8 BOM is still UTF-8). */
export function encodingFromBom(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * Decodes a CSV byte stream as spreadsheets write them: a UTF-16 BOM means UTF-16; otherwise strict UTF-8, and when the
 * first non-ASCII byte of the file is not UTF-8, the file is in a single-byte encoding (ASCII reads the same in all of
 * them, so nothing decoded so far changes meaning): the one `--encoding` names, or the one guessEncoding finds in the
 * whole file; a guess it is unsure of is an InputError, since a wrong one would send garbled names. An invalid byte
 * after real UTF-8 text is a damaged file, not another encoding: that stays DecodeUtf8's error with line and column.
 * `encoding` is final once the stream has ended.
 */
export class DecodeText extends Transform {
  encoding: TextEncoding = 'utf-8';
  hadBom = false;
  private readonly utf8: DecodeUtf8;
  /** The decoder of a file that is not UTF-8: its chunks, then its end (which may find a character cut short). */
  private other: { decode(bytes: Uint8Array): string; end(): string } | undefined;
  private first = true;
  private sawNonAscii = false;
  private chosen = false;
  /** The first bytes of a character the last chunk's end cut. */
  private carry: Buffer | undefined;

  constructor(
    private readonly source: string,
    private readonly options: DecodeOptions = {},
  ) {
    // Bytes out (UTF-8): text decoded from another encoding is pushed as a string and goes out as its UTF-8 bytes.
    super({ readableObjectMode: false, decodeStrings: true });
    this.utf8 = new DecodeUtf8(source);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.first) {
      this.first = false;
      const bom = encodingFromBom(chunk);
      const known = this.options.known;
      if (bom) this.use(bom, true);
      else if (known !== undefined && known !== 'utf-8' && !known.startsWith('utf-16')) {
        this.use(known, false);
        // With --encoding, every file not UTF-8 is read as it: the encoding known is the one it named.
        this.chosen = known === this.options.encoding;
      }
    }
    if (this.other) {
      this.decodeOther(chunk, done);
      return;
    }
    // UTF-8 so far: whole characters go on as the bytes they are. csv-parse reads bytes, so decoding them into a
    // string here only for it to encode them back cost two copies of the file; a character cut by the chunk's end
    // waits for the next chunk. What is not UTF-8 goes the decoding way, which says where and how.
    const bytes = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk]);
    const end = wholeCharactersEnd(bytes);
    const whole = end === bytes.length ? bytes : bytes.subarray(0, end);
    if (!isUtf8(whole)) {
      this.carry = undefined;
      this.decodeUtf8(bytes, done);
      return;
    }
    this.carry = end === bytes.length ? undefined : Buffer.from(bytes.subarray(end));
    if (whole.length > 0) this.utf8.passed(whole);
    this.hadBom = this.utf8.hadBom;
    // One native pass over the bytes, not a callback per byte (which cost more than decoding the chunk). Only over
    // whole characters: a character cut short is judged with the bytes that complete it.
    this.sawNonAscii ||= !isAscii(whole);
    done(null, whole);
  }

  override _flush(done: TransformCallback): void {
    if (this.other) {
      this.endOther(done);
      return;
    }
    const carry = this.carry;
    this.carry = undefined;
    if (carry === undefined) {
      this.utf8._flush(done);
      return;
    }
    // The file ends in the first bytes of a character: when they are its first non-ASCII bytes (`André` in
    // Windows-1252, its last byte 0xe9 with no line break after it), the file is in a single-byte encoding, as it
    // would be with any byte after them.
    if (!isUtf8(carry) && this.mayBeSingleByte()) {
      this.singleByte().then((encoding) => {
        this.use(encoding, false);
        this.decodeOther(carry, (error, text) => {
          if (error) return done(error);
          if (text) this.push(text);
          this.endOther(done);
        });
      }, done);
      return;
    }
    this.decodeUtf8(carry, (error, text) => {
      if (error) return done(error);
      if (text) this.push(text);
      this.utf8._flush(done);
    });
  }

  /** Bytes read as text by DecodeUtf8, or, when the file's first non-ASCII byte is not UTF-8, in its own encoding. */
  private decodeUtf8(bytes: Buffer, done: TransformCallback): void {
    // DecodeUtf8 answers synchronously; it stays the one place that tracks lines and columns for UTF-8 errors.
    this.utf8._transform(bytes, 'buffer' as BufferEncoding, (error, text) => {
      if (!error) {
        this.hadBom = this.utf8.hadBom;
        this.sawNonAscii ||= !isAscii(bytes);
        return done(null, text);
      }
      if (!this.mayBeSingleByte() || !firstNonAsciiIsNotUtf8(bytes)) return done(error);
      this.singleByte().then((encoding) => {
        this.use(encoding, false);
        this.decodeOther(bytes, done);
      }, done);
    });
  }

  /** No non-ASCII byte was UTF-8 so far, and --encoding does not insist on UTF-8. */
  private mayBeSingleByte(): boolean {
    return !this.sawNonAscii && this.options.encoding !== 'utf-8';
  }

  /** What was assumed, for the run's warnings; undefined for UTF-8. */
  warning(): string | undefined {
    if (this.encoding === 'utf-8') return undefined;
    const read = this.chosen
      ? `${ENCODING_NAMES[this.encoding] ?? this.encoding} (--encoding)`
      : `${LABELS[this.encoding] ?? this.encoding}`;
    const check =
      this.chosen || this.encoding.startsWith('utf-16')
        ? ''
        : `: ${advice({ kind: 'encoding-guessed' }, this.options.readers ?? 'terminal')}`;
    return `${this.source}: is not UTF-8; read as ${read}${check}. Its failed rows are written back as UTF-8 with a byte order mark, which Excel opens correctly`;
  }

  /** The single-byte encoding of a file found not to be UTF-8: --encoding's, or the guess from its bytes. */
  private async singleByte(): Promise<string> {
    if (this.options.encoding !== undefined) {
      this.chosen = true;
      return this.options.encoding;
    }
    if (this.options.path === undefined) return 'windows-1252';
    const guess = await guessEncoding(this.options.path);
    if ('unsure' in guess) throw new InputError(this.source, unsure(guess, this.options.readers));
    return guess.encoding;
  }

  private use(encoding: TextEncoding, bom: boolean): void {
    this.encoding = encoding;
    this.hadBom = bom;
    if (encoding === 'utf-16le' || encoding === 'utf-16be') {
      this.other = new DecodeUtf16(this.source, encoding);
      return;
    }
    // A single-byte encoding maps every byte, so it cannot fail.
    const decoder = singleByteDecoder(encoding);
    this.other = {
      decode: (bytes) => decoder.decode(bytes, { stream: true }),
      end: () => decoder.decode(new Uint8Array(0)),
    };
  }

  /** DecodeUtf16's errors are InputErrors in the tool's words, with the line and byte; anything else is said as one. */
  private decodeOther(chunk: Buffer, done: TransformCallback): void {
    try {
      done(null, this.other!.decode(chunk));
    } catch (cause) {
      done(this.otherError(cause));
    }
  }

  private endOther(done: TransformCallback): void {
    try {
      done(null, this.other!.end());
    } catch (cause) {
      done(this.otherError(cause));
    }
  }

  private otherError(cause: unknown): InputError {
    if (cause instanceof InputError) return cause;
    return new InputError(this.source, `is not valid ${this.encoding.toUpperCase()}: save it again as "CSV UTF-8"`, {
      cause,
    });
  }
}

/**
 * The encoding DecodeText will find for a file without a UTF-16 byte order mark, found before its first row is read:
 * a file read only once (validate) must know it from the start, since its failed rows need a BOM before the first
 * one is written when the file is not UTF-8. Reads the file's chunks as DecodeText gets them (a stream's) only
 * up to its first non-ASCII byte, and judges that byte as DecodeText does: `utf-8` unless it cannot start a UTF-8
 * character, else --encoding's or the guess from all of the file's bytes (an InputError when unsure, as DecodeText).
 */
export async function encodingAhead(
  source: string,
  path: string,
  encoding: string | undefined,
  readers?: Readers,
): Promise<TextEncoding> {
  // The first non-ASCII byte with the bytes after it, however the chunks cut them (so DecodeText judges it).
  let first: Buffer | undefined;
  // Whether the file ends within the bytes of `first`: a character cut short there is no UTF-8 (DecodeText's end).
  let atEnd = true;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    if (first !== undefined) {
      first = Buffer.concat([first, chunk.subarray(0, 4 - first.length)]);
      if (first.length < 4) continue;
      atEnd = false;
      break;
    }
    if (isAscii(chunk)) continue;
    first = chunk.subarray(chunk.findIndex((b) => b >= 0x80));
    if (first.length >= 4) {
      atEnd = false;
      break;
    }
  }
  const notUtf8 = first !== undefined && firstNonAsciiIsNotUtf8(first, atEnd);
  // --encoding utf-8 refuses such a file: DecodeText says so, at the byte.
  if (!notUtf8 || encoding === 'utf-8') return 'utf-8';
  if (encoding !== undefined) return encoding;
  const guess = await guessEncoding(path);
  if ('unsure' in guess) throw new InputError(source, unsure(guess, readers));
  return guess.encoding;
}

/** Why a file's encoding cannot be told, and what settles it, in the words of who reads it. */
function unsure(guess: Extract<Guess, { unsure: string }>, readers: Readers = 'terminal'): string {
  const hint = { kind: 'encoding-unsure', ...(guess.choices ? { choices: guess.choices } : {}) } as const;
  return `${guess.unsure}: ${advice(hint, readers)}`;
}

/** Where the last whole character of UTF-8 bytes ends: before a last character cut short, else the end. */
function wholeCharactersEnd(bytes: Buffer): number {
  let at = bytes.length - 1;
  while (at >= 0 && bytes.length - at <= 3 && (bytes[at]! & 0xc0) === 0x80) at--;
  if (at < 0 || bytes[at]! < 0xc0) return bytes.length; // ASCII or stray continuation bytes: isUtf8 judges them
  const lead = bytes[at]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return at + length > bytes.length ? at : bytes.length;
}

/**
 * True when the chunk's first byte >= 0x80 cannot start a UTF-8 character (0xfc for `ü` in Windows-1252 cannot);
 * `atEnd`: the chunk is the end of the file, so a character it cuts short is not completed by a later one.
 */
function firstNonAsciiIsNotUtf8(chunk: Buffer, atEnd = false): boolean {
  const at = chunk.findIndex((b) => b >= 0x80);
  if (at < 0) return false;
  const lead = chunk[at]!;
  const length =
    lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0) return true;
  try {
    // stream: true holds back a character cut off by the chunk's end instead of calling it invalid.
    new TextDecoder('utf-8', { fatal: true }).decode(chunk.subarray(at, at + length), { stream: !atEnd });
    return false;
  } catch {
    return true;
  }
}

const CANDIDATES = [',', ';', '\t'] as const;

/**
 * Guesses the delimiter from the header line: the candidate that occurs most often outside quotes.
 * Spreadsheets in locales with a decimal comma export `;`, so this cannot be a fixed `,`.
 */
export function detectDialect(head: string, format: 'csv' | 'tsv', bom: boolean): CsvDialect {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  let end = 0;
  let quoted = false;
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  for (; end < text.length; end++) {
    const ch = text[end]!;
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  const eol = text.slice(end, end + 2) === '\r\n' ? '\r\n' : '\n';
  if (format === 'tsv') return { delimiter: '\t', bom, eol };
  let delimiter = ',';
  let best = 0;
  for (const [candidate, count] of counts) {
    if (count > best) {
      best = count;
      delimiter = candidate;
    }
  }
  return { delimiter, bom, eol };
}
