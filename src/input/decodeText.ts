import { Transform, type TransformCallback } from 'node:stream';
import { InputError } from '../errors.js';
import { DecodeUtf8 } from './decodeUtf8.js';

/** The encodings a spreadsheet's "Save as CSV / Unicode text" produces, by their TextDecoder names. */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

const LABELS: Record<Exclude<TextEncoding, 'utf-8'>, string> = {
  'utf-16le': 'UTF-16 (little-endian, from its byte order mark)',
  'utf-16be': 'UTF-16 (big-endian, from its byte order mark)',
  'windows-1252': 'Windows-1252 (what Excel on Windows writes for "CSV (Comma delimited)")',
};

/** The encoding a UTF-16 byte order mark announces; undefined without one (a UTF-8 BOM is still UTF-8). */
export function encodingFromBom(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * Decodes a CSV byte stream as Excel writes them (issue 5): a UTF-16 BOM means UTF-16; otherwise strict UTF-8, and
 * when the first non-ASCII byte of the file is not UTF-8, the file is Windows-1252 (ASCII reads the same in both, so
 * nothing decoded so far changes meaning). An invalid byte after real UTF-8 text is a damaged file, not another
 * encoding: that stays DecodeUtf8's error with line and column. `encoding` is final once the stream has ended.
 */
export class DecodeText extends Transform {
  encoding: TextEncoding = 'utf-8';
  hadBom = false;
  private readonly utf8: DecodeUtf8;
  private other: InstanceType<typeof TextDecoder> | undefined;
  private first = true;
  private sawNonAscii = false;

  constructor(private readonly source: string) {
    super({ readableObjectMode: false, decodeStrings: true, encoding: 'utf8' });
    this.utf8 = new DecodeUtf8(source);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.first) {
      this.first = false;
      const bom = encodingFromBom(chunk);
      if (bom) this.use(bom, true);
    }
    if (this.other) {
      this.decodeOther(chunk, done);
      return;
    }
    // DecodeUtf8 answers synchronously; it stays the one place that tracks lines and columns for UTF-8 errors.
    this.utf8._transform(chunk, 'buffer' as BufferEncoding, (error, text) => {
      if (!error) {
        this.hadBom = this.utf8.hadBom;
        this.sawNonAscii ||= chunk.some((b) => b >= 0x80);
        return done(null, text);
      }
      if (this.sawNonAscii || !firstNonAsciiIsNotUtf8(chunk)) return done(error);
      this.use('windows-1252', false);
      this.decodeOther(chunk, done);
    });
  }

  override _flush(done: TransformCallback): void {
    if (this.other) {
      done(null, this.other.decode());
      return;
    }
    this.utf8._flush(done);
  }

  /** What was assumed, for the run's warnings; undefined for UTF-8. */
  warning(): string | undefined {
    if (this.encoding === 'utf-8') return undefined;
    return `${this.source}: is not UTF-8; read as ${LABELS[this.encoding]}. Its failed rows are written back as UTF-8 with a byte order mark, which Excel opens correctly`;
  }

  private use(encoding: Exclude<TextEncoding, 'utf-8'>, bom: boolean): void {
    this.encoding = encoding;
    this.hadBom = bom;
    // fatal for UTF-16: a broken surrogate is damage, and U+FFFD must not reach a name sent to the API.
    // Windows-1252 maps every byte, so it cannot fail.
    this.other = new TextDecoder(encoding, { fatal: encoding !== 'windows-1252', ignoreBOM: false });
  }

  private decodeOther(chunk: Buffer, done: TransformCallback): void {
    try {
      done(null, this.other!.decode(chunk, { stream: true }));
    } catch (cause) {
      done(
        new InputError(this.source, `is not valid ${this.encoding.toUpperCase()}: save it again as "CSV UTF-8"`, {
          cause,
        }),
      );
    }
  }
}

/** True when the chunk's first byte >= 0x80 cannot start a UTF-8 character (0xfc for `ü` in Windows-1252 cannot). */
function firstNonAsciiIsNotUtf8(chunk: Buffer): boolean {
  const at = chunk.findIndex((b) => b >= 0x80);
  if (at < 0) return false;
  const lead = chunk[at]!;
  const length =
    lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0) return true;
  try {
    // stream: true holds back a character cut off by the chunk's end instead of calling it invalid.
    new TextDecoder('utf-8', { fatal: true }).decode(chunk.subarray(at, at + length), { stream: true });
    return false;
  } catch {
    return true;
  }
}
