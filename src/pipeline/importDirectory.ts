import { InputError } from '../core/errors.js';
import type { ReadingOptions } from '../input/InputFile.js';
import { openInput } from '../input/openInput.js';
import { formatErrors } from '../output/results.js';
import { directoryEntryOf } from '../store/SqlDirectory.js';
import type { DirectoryEntry, PayerDirectoryTables } from '../store/Store.js';
import { checkHeader, classifyRows, DuplicateIds, isBankFile } from './classifyRows.js';

/** What `directory import` did: the entries written, and the rows and inputs it could not use. */
export interface DirectoryImported {
  /** Entries new to the directory, changed, and the same as it held. */
  added: number;
  changed: number;
  same: number;
  /** Rows `validate` calls invalid, by `file:line`, with its words (columns and rules: never a cell's value). */
  unusable: Array<{ where: string; why: string }>;
  /** Inputs of bank rows only: no payer in them. */
  bankOnly: string[];
  /** What reading the inputs found to say (a column not understood, an encoding guessed). */
  warnings: string[];
}

/** Entries looked up and written together: one read and one transaction for each. */
const CHUNK = 500;

/**
 * Fills the directory from payer files, read and checked as `validate` reads and checks them (a later row of a payer
 * is refused as a repeat there too): each valid payer row's names, e-mail and company. Nothing is sent. A file that
 * cannot be opened, or breaks partway, throws InputError (exit 2); what was read before it is written already, which
 * an import made again writes the same.
 */
export async function importDirectory(
  paths: readonly string[],
  reading: ReadingOptions & { sheet?: string | undefined },
  directory: PayerDirectoryTables,
  now: Date,
): Promise<DirectoryImported> {
  const done: DirectoryImported = { added: 0, changed: 0, same: 0, unusable: [], bankOnly: [], warnings: [] };
  const seen = new DuplicateIds();
  const names = new Set<string>();
  const at = now.toISOString();
  for (const path of paths) {
    const input = await openInput(path, reading);
    const name = input.file.name;
    if (names.has(name)) throw new InputError(name, 'is given twice (or two inputs share this file name)');
    names.add(name);
    if (isBankFile(input)) {
      done.bankOnly.push(name);
      continue;
    }
    done.warnings.push(...(await checkHeader(input, 'payers')));
    let chunk: DirectoryEntry[] = [];
    for await (const row of classifyRows(input, 'payers', { defaultAgreementCompleted: true, seen, today: now })) {
      const { result } = row;
      if (!result.ok) {
        const issues = result.issues.length > 0 ? result.issues : [{ message: 'row is invalid' }];
        done.unusable.push({ where: `${name}:${row.record.line}`, why: formatErrors(issues) });
      } else if ('compliance' in result) chunk.push(directoryEntryOf(result.compliance, at));
      if (chunk.length >= CHUNK) {
        await write(directory, chunk, done);
        chunk = [];
      }
    }
    await write(directory, chunk, done);
    done.warnings.push(...(input.warnings ?? []));
  }
  return done;
}

/** A chunk of entries written, each counted as new, changed or the same as the directory held. */
async function write(directory: PayerDirectoryTables, entries: DirectoryEntry[], done: DirectoryImported) {
  if (entries.length === 0) return;
  const known = await directory.entries(entries.map((entry) => entry.clientUserId));
  for (const entry of entries) {
    const before = known.get(entry.clientUserId);
    if (before === undefined) done.added++;
    else if (
      before.firstName === entry.firstName &&
      before.lastName === entry.lastName &&
      before.email === entry.email &&
      before.companyName === entry.companyName
    )
      done.same++;
    else done.changed++;
  }
  await directory.putEntries(entries);
}
