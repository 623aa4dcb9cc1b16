import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';

/**
 * The single-byte encodings a CSV that is not UTF-8 is tried in, in the order of presumption: Windows-1252 is what Excel
 * on Windows writes (ISO-8859-1 reads the same), Mac Roman what Excel for Mac writes, then the ISO sets for Central
 * and Western Europe. Any other (windows-1250, ...) is named with `--encoding`.
 */
const GUESSED = ['windows-1252', 'macintosh', 'iso-8859-2', 'iso-8859-15'] as const;
type GuessedEncoding = (typeof GUESSED)[number];

export const ENCODING_NAMES: Record<string, string> = {
  'windows-1252': 'Windows-1252',
  macintosh: 'Mac Roman',
  'iso-8859-2': 'ISO-8859-2',
  'iso-8859-15': 'ISO-8859-15',
};

// Windows-1252's 0x80-0x9F (the five bytes it leaves undefined stay C1 controls, as the Encoding Standard has them).
const W1252_HIGH = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8DŽ\x8F\x90‘’“”•–—˜™š›œ\x9DžŸ';

/**
 * A decoder for a single-byte encoding. Node 20.18.3 and later decode windows-1252 (and iso-8859-1, its alias) as
 * Latin-1, so `’` `€` `Ÿ` `Š` come out as C1 control characters (a regression of Node's TextDecoder, still open
 * upstream); they are mapped back here, and a Node that decodes them right leaves nothing to map.
 */
export function singleByteDecoder(encoding: string): {
  decode(bytes: Uint8Array, options?: { stream: boolean }): string;
} {
  const decoder = new TextDecoder(encoding);
  if (decoder.encoding !== 'windows-1252') return decoder;
  return {
    decode: (bytes, options) =>
      decoder.decode(bytes, options).replace(/[\x80-\x9f]/g, (c) => W1252_HIGH[c.charCodeAt(0) - 0x80]!),
  };
}

/**
 * `--encoding`'s value by its TextDecoder name (`latin1` -> `windows-1252`, `mac` -> `macintosh`), when it is UTF-8 or
 * an encoding of one byte a character; undefined for anything else (UTF-16 is known from its byte order mark).
 */
export function singleByteName(label: string): string | undefined {
  let name: string;
  try {
    name = new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
  return name === 'utf-8' || /^(?:windows-\d+|iso-8859-\d+|macintosh|x-mac-cyrillic|koi8-[ru]|ibm866)$/.test(name)
    ? name
    : undefined;
}

/** An encoding guessed, or why none can be: `choices`, the two that read the file equally well but differently. */
export type Guess = { encoding: GuessedEncoding } | { unsure: string; choices?: readonly [string, string] };

// What a byte is in one encoding, as far as telling encodings apart goes.
const OTHER = 0; // ASCII that is not a letter: digits, spaces, delimiters
const LOWER = 1;
const UPPER = 2;
const LETTER = 3; // a Latin letter without case
const MARK = 4; // punctuation that sits against letters in real text: apostrophes, closing quotes, dashes, ™, °, NBSP
const OPENING = 5; // an opening quote or ¿ ¡: before a word, never after one
const SYMBOL = 6; // anything else: £ ¦ ¯ ± π ...
const CONTROL = 7; // a control character or a byte the encoding leaves undefined: never in a name

const OPENINGS = new Set('‘‚“„«‹¿¡');
const MARKS = new Set('’‛”»›´`ʼ–—‐‑…·™®©ªº°\u00a0\u00ad');

function classOf(char: string): number {
  if (/[\p{Cc}\uFFFD]/u.test(char)) return CONTROL;
  if (OPENINGS.has(char)) return OPENING;
  if (MARKS.has(char)) return MARK;
  if (/\p{Script=Latin}/u.test(char) && /\p{L}/u.test(char))
    return /\p{Lu}|\p{Lt}/u.test(char) ? UPPER : /\p{Ll}/u.test(char) ? LOWER : LETTER;
  return char.codePointAt(0)! < 0x80 ? OTHER : SYMBOL;
}

/** Per encoding, each byte's class and text. */
const TABLES = GUESSED.map((encoding) => {
  const decoder = singleByteDecoder(encoding);
  const chars = Array.from({ length: 256 }, (_, b) => decoder.decode(Uint8Array.of(b)));
  return { encoding, classes: Uint8Array.from(chars, classOf), chars };
});

const isLetter = (k: number) => k === LOWER || k === UPPER || k === LETTER;

/**
 * How a non-ASCII character `c` reads between its neighbours `p` and `n`: +1 what fits a word of real text (`Müller`,
 * `Bob’s`, `‘Ann`), -1 what real text does not hold (`MŸller`, `M£ller`, `Zo‘`, a control character), 0 what says
 * nothing either way (a dash between spaces, a letter standing alone).
 */
function judge(p: number, c: number, n: number): number {
  const before = isLetter(p);
  const after = isLetter(n);
  switch (c) {
    case CONTROL:
      return -1;
    case SYMBOL:
      return before || after ? -1 : 0;
    case OPENING:
      return after && !before ? 1 : before && !after ? -1 : 0;
    case UPPER:
      if (p === LOWER || (p === UPPER && n === LOWER)) return -1;
      break;
    case LOWER:
      if (p === UPPER && n === UPPER) return -1;
      break;
  }
  return before || after ? 1 : 0;
}

/**
 * The evidence of a whole file, byte by byte, for each encoding: how many non-ASCII characters read as letters that
 * fit their word, and how many read as something real text does not hold. Holds counts only, whatever the file's size.
 */
export class EncodingEvidence {
  private readonly good = GUESSED.map(() => 0);
  private readonly bad = GUESSED.map(() => 0);
  /** Per encoding, the first line where it reads a character badly. */
  private readonly firstBad: Array<number | undefined> = GUESSED.map(() => undefined);
  /** Per pair of encodings (i * 4 + j), the first line where they read a byte differently. */
  private readonly firstDiffer = new Map<number, number>();
  private total = 0;
  private line = 1;
  private before = 0x0a;
  private last = 0x0a;

  add(chunk: Uint8Array): void {
    if (this.last < 0x80 && isAscii(chunk)) {
      this.countLines(chunk);
      this.shift(chunk);
      return;
    }
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.last >= 0x80) this.weigh(this.before, this.last, b);
      if (b === 0x0a) this.line++;
      this.before = this.last;
      this.last = b;
    }
  }

  end(): void {
    if (this.last >= 0x80) this.weigh(this.before, this.last, 0x0a);
    this.last = 0x0a;
  }

  /**
   * The encoding that reads the file best (letters that fit their words, minus twice what no text holds). Unsure when
   * the best still reads more than 1 in 20 characters badly, or when another encoding reads it equally well but
   * differently: then a person must say which.
   */
  verdict(): Guess {
    const score = (i: number) => this.good[i]! - 2 * this.bad[i]!;
    let best = 0;
    for (let i = 1; i < GUESSED.length; i++) if (score(i) > score(best)) best = i;
    const tried = GUESSED.map((e) => ENCODING_NAMES[e]).join(', ');
    if (this.bad[best]! > 0 && this.bad[best]! * 20 > this.total) {
      return {
        unsure: `is not UTF-8, and none of ${tried} reads it as plain text (see line ${this.firstBad[best]})`,
      };
    }
    // Windows-1252 is presumed only where it reads better: a tie with an encoding that reads the same bytes as other
    // letters (Mac Roman's `García` is Windows-1252's `Garc’a`) is a name that would be sent garbled one way or the other.
    const rival = GUESSED.findIndex((_, i) => i !== best && score(i) === score(best) && this.differ(i, best));
    if (rival >= 0) {
      const [a, b] = [GUESSED[Math.min(best, rival)]!, GUESSED[Math.max(best, rival)]!];
      return {
        unsure:
          `is not UTF-8, and ${ENCODING_NAMES[a]} and ${ENCODING_NAMES[b]} read it equally well but differently ` +
          `(see line ${this.firstDiffer.get(Math.min(best, rival) * 4 + Math.max(best, rival))})`,
        choices: [a, b],
      };
    }
    return { encoding: GUESSED[best]! };
  }

  private differ(i: number, j: number): boolean {
    return this.firstDiffer.has(Math.min(i, j) * 4 + Math.max(i, j));
  }

  private weigh(p: number, c: number, n: number): void {
    this.total++;
    for (let i = 0; i < TABLES.length; i++) {
      const { classes, chars } = TABLES[i]!;
      const verdict = judge(classes[p]!, classes[c]!, classes[n]!);
      if (verdict > 0) this.good[i]!++;
      else if (verdict < 0) {
        this.bad[i]!++;
        this.firstBad[i] ??= this.line;
      }
      for (let j = i + 1; j < TABLES.length; j++) {
        const key = i * 4 + j;
        if (!this.firstDiffer.has(key) && chars[c] !== TABLES[j]!.chars[c]) this.firstDiffer.set(key, this.line);
      }
    }
  }

  private countLines(chunk: Uint8Array): void {
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) this.line++;
  }

  private shift(chunk: Uint8Array): void {
    if (chunk.length >= 2) this.before = chunk[chunk.length - 2]!;
    else if (chunk.length === 1) this.before = this.last;
    if (chunk.length >= 1) this.last = chunk[chunk.length - 1]!;
  }
}

/** Reads the whole file once for its evidence: only for a file already known not to be UTF-8. */
export async function guessEncoding(path: string): Promise<Guess> {
  const evidence = new EncodingEvidence();
  for await (const chunk of createReadStream(path)) evidence.add(chunk as Buffer);
  evidence.end();
  return evidence.verdict();
}
