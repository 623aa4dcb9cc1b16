/**
 * What is wrong with a line that JSON.parse refused, in words a person fixing it in an editor acts on (a trailing
 * comma, a missing quote, a key without quotes) and where, by the key it is in or after. V8's own message gives a
 * column and quotes the line, which may hold personal data; keys are column names and are safe to name, values never
 * are. Called only for lines JSON.parse refused, so it walks the line once more by JSON's grammar, slowly and simply.
 * Undefined when the walk finds nothing wrong (a line JSON.parse refused for a reason this walk does not know).
 */
export function jsonLineProblem(text: string): string | undefined {
  try {
    new LineWalk(text).line();
    return undefined;
  } catch (error) {
    if (error instanceof Broken) return error.message;
    throw error;
  }
}

/**
 * How deep a line may nest: a payer row is one object of fields, its bank accounts a level or two down
 * (`paymentDetails`, a list of objects). Anything deeper is no row, and walking or writing it back one call per level
 * would run out of stack: it is refused as the line's problem, found without recursion.
 */
const MOST_DEPTH = 32;
export const TOO_DEEP = `nests more than ${MOST_DEPTH} levels of { } or [ ]: a payer row is one object of fields, with its bank accounts a level down in paymentDetails`;

/** Whether a parsed line nests deeper than a row can: looked at level by level, never recursively. */
export function nestedTooDeep(value: unknown): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MOST_DEPTH) return true;
    const next: unknown[] = [];
    for (const item of level)
      if (item !== null && typeof item === 'object') for (const child of Object.values(item)) next.push(child);
    level = next;
  }
  return false;
}

/** What a line that is valid JSON but not an object is instead; never its value. */
export function notAnObject(value: unknown): string {
  if (Array.isArray(value))
    return 'is a list ([...]), not one object: write each object ({"clientUserId": "...", ...}) on a line of its own, without [ ]';
  const what =
    typeof value === 'string'
      ? 'a JSON text'
      : typeof value === 'number'
        ? 'a number'
        : JSON.stringify(value); /* true, false or null */
  return `is ${what}, not an object: each line must be one object like {"clientUserId": "...", ...}`;
}

class Broken extends Error {}

const SPACE = /[ \t\r\n]/;
const WORD_START = /[A-Za-z_$]/;
const CURLY_QUOTES = /[\u2018\u2019\u201c\u201d]/;
// Bare words people write for JSON's true, false and null (Python's, JavaScript's): named, since they hold no data.
const KNOWN_WORDS = new Set(['True', 'False', 'None', 'TRUE', 'FALSE', 'NULL', 'Null', 'undefined', 'NaN', 'Infinity']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const SPREAD = 'JSONL needs each object whole on one line';

type Kind = 'object' | 'array' | 'string' | 'other';

class LineWalk {
  private at = 0;
  /** The last key read with its colon, at any depth: problems are placed by it. */
  private key: string | undefined;
  /** Set while a value is read: a problem then lies in it, not after it. */
  private inValue = false;
  /** The { and [ open around the walk: each level is a call of this walk, so it stops at a row's most. */
  private depth = 0;

  constructor(private readonly text: string) {}

  line(): void {
    this.space();
    const first = this.peek();
    if (first === '}' || first === ']')
      throw new Broken(
        `a ${first} at its start: it looks like the end of an object written over several lines: ${SPREAD}`,
      );
    if (first !== undefined && WORD_START.test(first) && !/^(?:true|false|null)\b/.test(this.text.slice(this.at)))
      throw new Broken('no { at its start: each line must be one object like {"clientUserId": "...", ...}');
    const kind = this.value();
    this.space();
    const next = this.peek();
    if (next === undefined) return;
    if (kind === 'string' && next === ':')
      throw new Broken(
        `a key and its value without { }: it looks like one line of an object written over several lines: ${SPREAD}`,
      );
    if (kind === 'object' && next === ',')
      throw new Broken(
        'a comma after the closing } of its object: remove it (lines of JSONL are not separated by commas)',
      );
    if (kind === 'object' && next === '}') throw new Broken('one } too many at its end: remove it');
    throw new Broken('more after the closing } of its object: each line holds exactly one object');
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private space(): void {
    while (this.at < this.text.length && SPACE.test(this.text[this.at]!)) this.at++;
  }

  private named(key: string): string {
    return key.length <= 60 && [...key].every((c) => c >= ' ') ? JSON.stringify(key) : 'a key';
  }

  /** Where the walk is, for a message: in a value, after one, or at the start. */
  private where(): string {
    if (this.key === undefined) return 'at the start of the line';
    return `${this.inValue ? 'in' : 'after'} the value of ${this.named(this.key)}`;
  }

  private cutShort(closing: string): Broken {
    const where = this.key === undefined ? '' : `, ${this.where()}`;
    return new Broken(`the end of the line before the closing ${closing}${where}: the line is cut short, or ${SPREAD}`);
  }

  private value(): Kind {
    this.space();
    const c = this.peek();
    if (c === undefined) throw this.cutShort('}');
    if (c === '{' || c === '[') {
      if (++this.depth > MOST_DEPTH) throw new Broken(TOO_DEEP);
      const kind = c === '{' ? this.object() : this.array();
      this.depth--;
      return kind;
    }
    if (c === '"') {
      this.string();
      return 'string';
    }
    this.quotes(c);
    if (c === '-' || c === '+' || c === '.' || (c >= '0' && c <= '9')) this.number();
    else this.word();
    return 'other';
  }

  /** A quote JSON does not take, wherever a quote could start. */
  private quotes(c: string): void {
    if (c === "'") throw new Broken(`single quotes (') ${this.where()}: JSON takes double quotes (") only`);
    if (CURLY_QUOTES.test(c))
      throw new Broken(
        `curly quotes (\u201c \u201d) ${this.where()}, as a word processor writes them: JSON takes straight double quotes (") only`,
      );
  }

  private object(): Kind {
    this.at++; // {
    this.space();
    if (this.peek() === '}') {
      this.at++;
      return 'object';
    }
    for (;;) {
      this.member();
      this.space();
      const c = this.peek();
      if (c === '}') {
        this.at++;
        return 'object';
      }
      if (c === ',') {
        this.at++;
        this.space();
        if (this.peek() === '}')
          throw new Broken(`a trailing comma ${this.where()}, before the closing }: remove that comma`);
        continue;
      }
      this.between(c, '}');
    }
  }

  /** One `"key": value` of an object. */
  private member(): void {
    this.space();
    const c = this.peek();
    if (c === undefined) throw this.cutShort('}');
    this.quotes(c);
    if (c !== '"') {
      if (WORD_START.test(c))
        throw new Broken(`a key without double quotes ${this.where()}: write every key in them ("key": ...)`);
      throw new Broken(`${JSON.stringify(c)} where a key in double quotes should be, ${this.where()}`);
    }
    const key = this.string();
    this.space();
    const colon = this.peek();
    if (colon === undefined) throw this.cutShort('}');
    if (colon !== ':') {
      if (colon === '"' || colon === '{' || colon === '[' || /[-0-9]/.test(colon))
        throw new Broken(`a key with no colon after it, ${this.where()}: write "key": value`);
      throw new Broken(`a quote missing or one too many ${this.where()}`);
    }
    this.at++;
    this.key = key;
    this.inValue = true;
    this.value();
    this.inValue = false;
  }

  /** What follows a value where a comma or the closing bracket should. */
  private between(c: string | undefined, closing: string): never {
    if (c === undefined) throw this.cutShort(closing);
    if (c === '"' || c === '{' || c === '[') throw new Broken(`a comma missing ${this.where()}`);
    if (/[A-Za-z0-9_$]/.test(c)) throw new Broken(`a quote missing or one too many ${this.where()}`);
    this.quotes(c);
    throw new Broken(`${JSON.stringify(c)} ${this.where()}, where a comma or ${closing} should be`);
  }

  private array(): Kind {
    this.at++; // [
    this.space();
    if (this.peek() === ']') {
      this.at++;
      return 'array';
    }
    for (;;) {
      this.value();
      this.space();
      const c = this.peek();
      if (c === ']') {
        this.at++;
        return 'array';
      }
      if (c === ',') {
        this.at++;
        this.space();
        if (this.peek() === ']')
          throw new Broken(`a trailing comma ${this.where()}, before the closing ]: remove that comma`);
        continue;
      }
      this.between(c, ']');
    }
  }

  /** A string from its opening quote; returns its text. */
  private string(): string {
    const start = this.at;
    this.at++;
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new Broken(`a text with no closing quote ${this.where()}: the line ends inside it`);
      if (c === '"') break;
      if (c < ' ')
        throw new Broken(
          `a tab or another control character inside a text ${this.where()}: write a tab as \\t, or remove it`,
        );
      if (c === '\\') {
        const escaped = this.text[this.at + 1];
        const valid =
          escaped !== undefined &&
          (ESCAPES.has(escaped) ||
            (escaped === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.at + 2, this.at + 6))));
        if (!valid)
          throw new Broken(`a backslash that starts no JSON escape ${this.where()}: write a backslash itself as \\\\`);
        this.at += escaped === 'u' ? 6 : 2;
        continue;
      }
      this.at++;
    }
    this.at++;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private number(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    const after = this.text[this.at + (match?.[0].length ?? 0)];
    if (match !== null && (after === undefined || !/[0-9.eE+-]/.test(after))) {
      this.at += match[0].length;
      return;
    }
    if (/^-?0\d/.test(this.text.slice(this.at)))
      throw new Broken(
        `a number starting with 0 ${this.where()}, which JSON does not allow: write it as a string with all its digits ("0...")`,
      );
    throw new Broken(`a number JSON cannot read ${this.where()}: write it as a string ("...")`);
  }

  private word(): void {
    const word = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.at))?.[0];
    if (word === 'true' || word === 'false' || word === 'null') {
      this.at += word.length;
      return;
    }
    if (word !== undefined && KNOWN_WORDS.has(word))
      throw new Broken(`${word} ${this.where()}, which JSON does not know: write true, false or null`);
    if (word !== undefined) throw new Broken(`a text without double quotes ${this.where()}: write it in them ("...")`);
    throw new Broken(`${JSON.stringify(this.peek())} where a value should be, ${this.where()}`);
  }
}

// The note a failed JSONL file puts on a line that is not an object, so the line's error travels with it: written at
// the line's start as the two keys every failed line has, `{"error": "...", "completedSteps": "...",` followed by the
// rest of the line after its own `{` (once the line is fixed, it is an object like any other failed line's), or as an
// object of its own before a line that does not start with `{`. Read back off such a line while it is still broken,
// so a line given back unfixed fails as it did, with one note.
const NOTE = /^\{"error":("(?:[^"\\]|\\.)*"),"completedSteps":("(?:[^"\\]|\\.)*")(,|\} )/;

/**
 * The line as a failed JSONL file writes it: the note with its error and completedSteps, then the line. A line not
 * kept (too large to be a row) is the note alone: its error says where the line is in the file it came from.
 */
export function withNote(text: string, error: string, completedSteps: string): string {
  const note = `{"error":${JSON.stringify(error)},"completedSteps":${JSON.stringify(completedSteps)}`;
  const start = text.trimStart();
  if (start === '') return `${note}}`;
  return start.startsWith('{') ? `${note},${start.slice(1)}` : `${note}} ${text}`;
}

/** A line's text without the note a failed file put on it, and the completedSteps the note carried. */
export function withoutNote(text: string): { text: string; completedSteps: string } | undefined {
  const note = NOTE.exec(text);
  if (note === null) return undefined;
  const rest = text.slice(note[0].length);
  return { text: note[3] === ',' ? `{${rest}` : rest, completedSteps: JSON.parse(note[2]!) as string };
}

// A `"key": "text"` pair where a key may stand (after `{` or `,`) and that ends where a value ends: in a line that
// is not valid JSON the pairs before and after the fault are read alike, and one whose quotes the fault shifted does
// not end with `,` or `}`.
const PAIR = /(?<=[{,]\s*)"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"(?=\s*[,}])/g;

/** The text values of a line that is not valid JSON, as far as they can be read, by key (the first of each). */
export function readablePairs(text: string): { column: string; value: string }[] {
  const pairs = new Map<string, string>();
  for (const [, key, value] of text.matchAll(PAIR)) {
    try {
      const column = JSON.parse(`"${key}"`) as string;
      if (!pairs.has(column)) pairs.set(column, JSON.parse(`"${value}"`) as string);
    } catch {
      // a pair with an escape JSON does not know is not readable: left out
    }
  }
  return [...pairs].map(([column, value]) => ({ column, value }));
}
