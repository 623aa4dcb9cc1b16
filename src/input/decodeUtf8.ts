import { Transform, type TransformCallback } from 'node:stream';
import { InputError } from '../errors.js';

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

  private track(text: string): void {
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) {
        this.line++;
        this.column = 1;
      } else {
        this.column++;
      }
    }
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
