import { createReadStream } from 'node:fs';
import { InputError } from '../core/errors.js';
import type { Cell } from '../core/types.js';
import { DecodeUtf8, textLines } from './decodeUtf8.js';
import { MAX_CELL_LENGTH, type InputFile, unreadable, type OpenedInput, type RawRecord } from './InputFile.js';

/**
 * Opens a JSONL file: one object per line, keys as CSV headers. A line that is not a JSON object is that row's
 * problem, not the file's, so the rest still goes through.
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
  const lines = textLines(stream.pipe(decoder).setEncoding('utf8'));

  // Read up to the first non-blank line now, so an empty or unreadable file is rejected before anything starts.
  const pending: string[] = [];
  for (;;) {
    const step = await lines.next();
    if (step.done) break;
    pending.push(step.value);
    if (step.value.trim() !== '') break;
  }
  if (pending.every((l) => l.trim() === '')) {
    stream.destroy();
    throw new InputError(file.name, 'is empty: expected one JSON object per line');
  }

  async function* records(): AsyncGenerator<RawRecord> {
    try {
      let line = 0;
      for (const text of pending) {
        line++;
        if (text.trim() !== '') yield toRawRecord(text, line);
      }
      pending.length = 0;
      for await (const text of lines) {
        line++;
        if (text.trim() !== '') yield toRawRecord(text, line);
      }
    } finally {
      stream.destroy();
      decoder.destroy();
    }
  }
  return { file, records: records() };
}

function toRawRecord(text: string, line: number): RawRecord {
  const original = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(original);
  } catch (error) {
    // V8's message quotes the line, which may hold personal data: keep only the position.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` at column ${Number(position) + 1}`;
    return { line, cells: [], original, problem: { column: '(line)', message: `is not valid JSON${where}` } };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      line,
      cells: [],
      original,
      problem: { column: '(line)', message: 'must be a JSON object like {"clientUserId": "..."}' },
    };
  }
  const cells: Cell[] = Object.entries(value as Record<string, unknown>).map(([column, v]) => ({ column, value: v }));
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
