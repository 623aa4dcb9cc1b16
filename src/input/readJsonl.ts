import { createReadStream } from 'node:fs';
import { InputError } from '../core/errors.js';
import type { Cell } from '../core/types.js';
import { JsonNumber } from '../rows/findData.js';
import { DecodeUtf8, type LongLine, textLines } from './decodeUtf8.js';
import {
  jsonLineProblem,
  nestedTooDeep,
  notAnObject,
  readablePairs,
  TOO_DEEP,
  withoutNote,
} from './jsonLineProblem.js';
import {
  MAX_CELL_LENGTH,
  MAX_RECORD_SIZE,
  type InputFile,
  unreadable,
  type OpenedInput,
  type RawRecord,
} from './InputFile.js';

/**
 * Opens a JSONL file: one object per line, keys as CSV headers. A line that is not a JSON object is that row's
 * problem, not the file's, so the rest still goes through; it is said in words (jsonLineProblem), and what can be read
 * of the line is kept as its cells. A line of a failed file given back still broken is read without the note that
 * file put on it (withoutNote), so it fails as it did and notes do not pile up.
 */
export async function readJsonl(file: InputFile): Promise<OpenedInput> {
  const decoder = new DecodeUtf8(file.name);
  const stream = createReadStream(file.path);
  // A read error ends the decoder with it, so the line iterator throws it where the rows are read.
  stream.on('error', (cause) => {
    decoder.destroy(unreadable(file, cause));
  });
  // Not readline with a Promise.race against a failure promise per line: every race left a reaction on that
  // promise until the end of the file, a leak of one closure per line, and memory must not grow with the file.
  const lines = textLines(stream.pipe(decoder).setEncoding('utf8'), MAX_RECORD_SIZE);

  // Read up to the first non-blank line now, so an empty or unreadable file is rejected before anything starts. The
  // blank lines before it are counted, not kept: a file of nothing but line breaks is as big as any.
  let line = 0;
  let first: string | LongLine | undefined;
  for (;;) {
    const step = await lines.next();
    if (step.done) break;
    line++;
    if (!isBlank(step.value)) {
      first = step.value;
      break;
    }
  }
  if (first === undefined) {
    stream.destroy();
    throw new InputError(file.name, 'is empty: expected one JSON object per line');
  }
  const firstLine = first;

  async function* records(): AsyncGenerator<RawRecord> {
    try {
      yield toRawRecord(firstLine, line, file.name);
      for await (const text of lines) {
        line++;
        if (!isBlank(text)) yield toRawRecord(text, line, file.name);
      }
    } finally {
      stream.destroy();
      decoder.destroy();
    }
  }
  return { file, records: records() };
}

const isBlank = (text: string | LongLine) => typeof text === 'string' && text.trim() === '';

/**
 * A line past the size a row can have: its text was never kept (textLines counted it to its end), so it is the
 * line's problem, and the failed file holds its note without it.
 */
function tooLong(bytes: number, line: number, source: string): RawRecord {
  const message = `is larger than ${MAX_RECORD_SIZE / 1024 / 1024} MB (${bytes} bytes), more than a payer row can be: check that each object ends with a line break (too large to copy here: fix it in line ${line} of ${source})`;
  return { line, cells: [], original: '', problem: { column: '(line)', message } };
}

function toRawRecord(text: string | LongLine, line: number, source: string): RawRecord {
  if (typeof text !== 'string') return tooLong(text.bytes, line, source);
  let original = text.replace(/^\uFEFF/, '');
  let parsed = parseLine(original);
  let carried: Cell[] = [];
  if (parsed === BROKEN) {
    const noted = withoutNote(original);
    if (noted !== undefined) {
      original = noted.text;
      carried = [{ column: 'completedSteps', value: noted.completedSteps }];
      parsed = parseLine(original);
    }
  }
  const tooDeep = parsed !== BROKEN && nestedTooDeep(parsed);
  if (tooDeep || parsed === BROKEN || parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    // What can still be read of the line (its clientUserId, above all) names the row in results.csv.
    const cells = [
      ...carried,
      ...readablePairs(original).filter((pair) => carried.every((c) => c.column !== pair.column)),
    ];
    const message = tooDeep
      ? TOO_DEEP
      : parsed === BROKEN
        ? `is not valid JSON: ${brokenLine(original)}`
        : notAnObject(parsed);
    return { line, cells, original, problem: { column: '(line)', message } };
  }
  // Most numbers are written as their value's decimal text; a line whose whole number may not be is read again.
  const object = WRITTEN_OTHERWISE.test(original) && holdsWholeNumber(parsed) ? numbersAsWritten(original) : parsed;
  const cells: Cell[] = Object.entries(object as Record<string, unknown>).map(([column, v]) => ({ column, value: v }));
  // A line fixed with the note still on it (an object written after a note on its own) keeps the steps it carried.
  if (carried.length > 0 && !cells.some((cell) => cell.column === 'completedSteps')) cells.push(...carried);
  const long = cells.find((cell) => typeof cell.value === 'string' && cell.value.length > MAX_CELL_LENGTH);
  if (long) {
    return {
      line,
      cells,
      original,
      problem: {
        column: long.column,
        message: `is ${(long.value as string).length} characters long, at most ${MAX_CELL_LENGTH}`,
      },
    };
  }
  return { line, cells, original };
}

const BROKEN = Symbol('not JSON');

// A JSON value (after `:`, `,` or `[`) written with a fraction or an exponent, or a string that looks like one.
const WRITTEN_OTHERWISE = /[:,[]\s*-?\d+[.eE]/;

/**
 * Whether a parsed line (known not to nest deeply) holds a whole number anywhere: only a whole number's text can
 * differ from its value's (`62701.0`) and still pass for an identifier's digits. Any other keeps its fraction.
 */
function holdsWholeNumber(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value);
  if (value === null || typeof value !== 'object') return false;
  for (const child of Object.values(value)) if (holdsWholeNumber(child)) return true;
  return false;
}

/**
 * A line that JSON.parse read, read again with each number written otherwise than as its value's decimal text kept
 * as a JsonNumber (the reviver's source text): in a field of digits, `120000000.0` and `1.2E8` are not `120000000`.
 */
function numbersAsWritten(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined && context.source !== String(value)
      ? new JsonNumber(context.source, value)
      : value,
  );
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return BROKEN;
  }
}

/** What is wrong with a line JSON.parse refused, in words; V8's position where the words cannot say. */
function brokenLine(text: string): string {
  const said = jsonLineProblem(text);
  if (said !== undefined) return said;
  let position: string | undefined;
  try {
    JSON.parse(text);
  } catch (error) {
    // V8's message quotes the line, which may hold personal data: keep only the position.
    position = /position (\d+)/.exec((error as Error).message)?.[1];
  }
  return position === undefined
    ? 'JSON.parse refused it'
    : `something JSON does not allow at column ${Number(position) + 1}`;
}
