import { TextDecoder } from 'node:util';
import { InputError } from '../core/errors.js';

/**
 * Decodes UTF-16 (the byte order its BOM gave) strictly, chunk by chunk, and says in the tool's own words where it
 * breaks: the line and the byte of the file. A broken surrogate is damage, and U+FFFD must not reach a name sent to
 * the API. The bytes a chunk's end cuts (an odd byte, the first half of a surrogate pair) wait here for the next
 * chunk, so the decoder holds nothing between calls and a failure is found in the bytes at hand.
 */
export class DecodeUtf16 {
  private readonly decoder: TextDecoder;
  private readonly little: boolean;
  private held: Buffer | undefined;
  private line = 1;
  /** Bytes of the file before the next chunk (and before what is held). */
  private offset = 0;

  constructor(
    private readonly source: string,
    private readonly encoding: 'utf-16le' | 'utf-16be',
  ) {
    // stream: a BOM comes off the first chunk only, never off a later one that starts with U+FEFF.
    this.decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: false });
    this.little = encoding === 'utf-16le';
  }

  decode(chunk: Uint8Array): string {
    const bytes = this.held === undefined ? Buffer.from(chunk) : Buffer.concat([this.held, chunk]);
    let end = bytes.length & ~1;
    if (end >= 2 && isHigh(this.unit(bytes, end - 2))) end -= 2;
    const whole = bytes.subarray(0, end);
    this.held = end < bytes.length ? Buffer.from(bytes.subarray(end)) : undefined;
    let text: string;
    try {
      text = this.decoder.decode(whole, { stream: true });
    } catch {
      throw this.broken(whole);
    }
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) this.line++;
    this.offset += whole.length;
    return text;
  }

  /** The end of the file: what is still held is a character cut short. */
  end(): string {
    if (this.held === undefined) return '';
    const what = this.held.length % 2 === 1 ? 'an odd byte at the end' : 'an incomplete character at the end';
    throw this.error(what, this.line, this.offset + 1);
  }

  /** The first code unit that is half a surrogate pair, found unit by unit (only once the decoder refused). */
  private broken(bytes: Buffer): InputError {
    let line = this.line;
    for (let at = 0; at + 1 < bytes.length; at += 2) {
      const unit = this.unit(bytes, at);
      if (unit === 0x0a) line++;
      const paired = isHigh(unit) && at + 3 < bytes.length && isLow(this.unit(bytes, at + 2));
      if (paired) at += 2;
      else if (isHigh(unit) || isLow(unit)) return this.error('a broken character', line, this.offset + at + 1);
    }
    return this.error('a broken character', line, this.offset + 1);
  }

  private error(what: string, line: number, byte: number): InputError {
    return new InputError(
      this.source,
      `is not valid ${this.encoding.toUpperCase()} (${what}, byte ${byte} of the file): save it again as "CSV UTF-8"`,
      { line },
    );
  }

  private unit(bytes: Buffer, at: number): number {
    return this.little ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at);
  }
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
