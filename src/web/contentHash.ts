import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { DateFormat } from '../core/types.js';
import type { Fix } from './uploadTable.js';

/**
 * What an approval covers: the file as uploaded (its SHA-256, `file`) and every choice that makes the file sent from
 * it: its sheet, the mapping, the date format, the rows left out, each cell changed, in order.
 */
export interface SentContent {
  file: string;
  name: string;
  sheet: string | undefined;
  mapping: Readonly<Record<string, string>>;
  dateFormat: DateFormat | undefined;
  leftOut: readonly number[];
  fixes: readonly Fix[];
}

/** The hash of what would be sent: an approval holds while the upload's hash is the one it was given for. */
export function contentHash(content: SentContent): string {
  const { file, name, sheet, mapping, dateFormat, leftOut, fixes } = content;
  const hashed = {
    ...{ file, name, sheet: sheet ?? null },
    mapping: Object.entries(mapping).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    dateFormat: dateFormat ?? null,
    leftOut,
    fixes: fixes.map((fix) => [fix.line, fix.column, fix.value]),
  };
  return createHash('sha256').update(JSON.stringify(hashed)).digest('hex');
}

/** The SHA-256 of a file, read a chunk at a time. */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
