import { createReadStream } from 'node:fs';

/** One line of the journal file and where it sits, so the journal can read it back later by offset. */
export interface JournalLine {
  text: string;
  /** Byte offset of the line's first byte, and its length in bytes without the newline. */
  offset: number;
  length: number;
}

/**
 * The lines of a file with their byte offsets (readline gives text only). Splits on `\n`; a last line without
 * one (a crash mid-write) is still given. Only the current chunk and a partial line are held.
 */
export async function* journalLines(path: string): AsyncGenerator<JournalLine> {
  let offset = 0;
  let pending: Buffer[] = [];
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, at);
      const bytes = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
      yield { text: bytes.toString('utf8'), offset, length: bytes.length };
      offset += bytes.length + 1;
      pending = [];
      from = at + 1;
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
  if (pending.length > 0) {
    const bytes = Buffer.concat(pending);
    yield { text: bytes.toString('utf8'), offset, length: bytes.length };
  }
}
