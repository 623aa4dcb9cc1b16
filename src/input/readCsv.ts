import { createReadStream } from 'node:fs';
import { InputError } from '../errors.js';
import type { Cell } from '../types.js';
import { type CsvRecord, csvRecords } from './csvRecords.js';
import { DecodeText, encodingFromBom, detectDialect } from './decodeText.js';
import { MAX_CELL_LENGTH, type InputFile, unreadable, type OpenedInput, type RawRecord } from './InputFile.js';

/**
 * Opens a CSV/TSV file as spreadsheets export it: UTF-8 with or without BOM, UTF-16 with BOM or Windows-1252
 * (DecodeText), `,` `;` or tab, CRLF, LF or CR, quoted fields with delimiters, quotes and newlines inside
 * (csvRecords). Every value stays the string as written. Streams: only the current chunk is in memory.
 * A file that is not UTF-8 adds one warning to `warnings` once read to the end, and its failed file gets a BOM
 * (it is written in UTF-8, which only a BOM tells Excel).
 */
export async function readCsv(file: InputFile): Promise<OpenedInput> {
  const head = await readHead(file);
  if (head.trim() === '' || head.replace(/^\uFEFF/, '').trim() === '') {
    throw new InputError(file.name, 'is empty: expected a header line and at least one row');
  }
  const decoder = new DecodeText(file.name);
  const warnings: string[] = [];
  const dialect = detectDialect(head, file.format === 'tsv' ? 'tsv' : 'csv', head.charCodeAt(0) === 0xfeff);
  const bytes = createReadStream(file.path).on('error', (cause) =>
    decoder.destroy(new InputError(file.name, `cannot be read (${(cause as NodeJS.ErrnoException).code})`, { cause })),
  );
  const iterator = csvRecords(bytes.pipe(decoder), file.name, dialect.delimiter);
  const close = () => {
    bytes.destroy();
    decoder.destroy();
  };

  const first = await next(iterator, file.name).catch((error: unknown) => {
    close();
    throw error;
  });
  if (first === undefined) throw new InputError(file.name, 'is empty: expected a header line and at least one row');
  const header = first.cells.map((h) => h.trim());
  if (header.every((h) => h === '')) throw new InputError(file.name, 'has no usable header', { line: first.line });
  dialect.bom = decoder.hadBom;
  decoder.on('end', () => {
    file.encoding = decoder.encoding;
    const warning = decoder.warning();
    if (warning) warnings.push(warning);
  });
  // Pass 2 knows the encoding from pass 1: a Windows-1252 file's failed rows need their BOM before the first non-ASCII byte.
  if (decoder.hadBom || decoder.encoding !== 'utf-8' || (file.encoding ?? 'utf-8') !== 'utf-8') dialect.bom = true;

  async function* records(): AsyncGenerator<RawRecord> {
    try {
      for (;;) {
        const parsed = await next(iterator, file.name);
        if (parsed === undefined) return;
        yield toRawRecord(parsed.cells, parsed.line, header);
      }
    } finally {
      close();
    }
  }
  return { file, header, dialect, records: records(), warnings };
}

function toRawRecord(record: string[], line: number, header: string[]): RawRecord {
  const cells: Cell[] = header.map((column, i) => ({ column, value: record[i] ?? '' }));
  const raw: RawRecord = { line, cells, original: record };
  if (record.length !== header.length) {
    // Even one extra empty cell is refused: a stray delimiter inside an unquoted cell (`Smith, John`) shifts every
    // cell after it and pushes the blank last column out, and the shifted values could still look valid.
    raw.problem = {
      column: '(row)',
      message: `has ${record.length} cells but the header has ${header.length}: check for a missing or extra delimiter`,
    };
    return raw;
  }
  const long = cells.find((cell) => (cell.value as string).length > MAX_CELL_LENGTH);
  if (long)
    raw.problem = {
      column: long.column || '(row)',
      message: `is ${(long.value as string).length} characters long, at most ${MAX_CELL_LENGTH}`,
    };
  return raw;
}

async function next(iterator: AsyncIterator<CsvRecord>, source: string): Promise<CsvRecord | undefined> {
  try {
    const step = await iterator.next();
    return step.done ? undefined : step.value;
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(source, `cannot be read (${(error as Error).message})`, { cause: error });
  }
}

async function readHead(file: InputFile): Promise<string> {
  const stream = createReadStream(file.path, { start: 0, end: 64 * 1024 - 1 });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (cause) {
    throw unreadable(file, cause);
  }
  const head = Buffer.concat(chunks);
  // Only for the empty check and the delimiter guess: a Windows-1252 byte read as U+FFFD changes neither.
  return new TextDecoder(encodingFromBom(head) ?? 'utf-8').decode(head);
}
