import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { ConfigError, PayerOnboardError } from '../core/errors.js';
import { openStore, storeMayHold } from '../store/openStore.js';
import type { JournalTables, Store } from '../store/Store.js';
import { type Imported, importOldJournal } from './importJournal.js';
import { Journal } from './Journal.js';

/** Where one service and key's journal is: the store of a state dir, and the JSONL files older versions kept it in. */
export interface JournalPlace {
  stateDir: string;
  /** A PostgreSQL database to keep it in instead of the state dir's SQLite file. */
  databaseUrl?: string | undefined;
  /** `<host>-<hash>`: the service's base URL and key, as the old journal folders were named. */
  service: string;
  /** The old journal files, imported once each and kept as they were. */
  jsonl: readonly string[];
  /**
   * The store, open already: serve's for its life, or the one a hold writes through. Read and written without
   * opening another; whoever opened it closes it (a hold's store closes nothing).
   */
  open?: Store;
}

/**
 * Opens the journal of a run, importing what an older version left in JSONL first; records that a crash left
 * half-written are skipped with a warning, never fatal. A key new to this store at a service it has journals of is
 * said: what a journal forgets matters.
 */
export async function openJournal(
  place: JournalPlace,
  warnings: string[],
  logger: Logger,
  stderr: NodeJS.WritableStream | undefined,
): Promise<{ journal: Journal; isNew: boolean }> {
  // The store the run's hold writes through, where it has one (closing it closes nothing); else its own.
  const store = place.open ?? (await openStore(place));
  let isNew: boolean;
  try {
    const tables = store.journal(place.service);
    await importInto(tables, place, warnings, stderr, store.location);
    isNew = (await tables.setting('opened')) === undefined;
    if (isNew) {
      warnOfOtherKeys(place, await store.services(), warnings, stderr);
      await tables.write([{ setting: 'opened', value: new Date().toISOString() }]);
    }
  } catch (error) {
    await store.close();
    throw unwritable(error, store.location);
  }
  const { journal, load } = await Journal.open(store, place.service).catch((error: unknown) => {
    throw unwritable(error, store.location);
  });
  logger.info({ store: store.location, service: place.service, ...load }, 'journal loaded');
  return { journal, isNew };
}

/**
 * Reads a journal without holding it: `status`, the inbox and the web page read while a run may write. Nothing to
 * read where neither the store nor an old journal exists (and then nothing is created).
 */
export async function readJournal<T>(
  place: JournalPlace,
  read: (tables: JournalTables) => Promise<T>,
): Promise<T | undefined> {
  if (!journalMayHold(place)) return undefined;
  const store = place.open ?? (await openStore(place));
  try {
    const tables = store.journal(place.service);
    await importInto(tables, place, [], undefined, store.location);
    return await read(tables);
  } finally {
    if (place.open === undefined) await store.close();
  }
}

/** Whether there may be a journal to read: a store open or made already, or an old journal file to import. */
export function journalMayHold(place: JournalPlace): boolean {
  return place.open !== undefined || storeMayHold(place) || place.jsonl.some((path) => existsSync(path));
}

/** A store that cannot be written as a run opens it: nothing was sent yet, so the run cannot start (exit 2). */
function unwritable(error: unknown, location: string): unknown {
  if (error instanceof PayerOnboardError) return error;
  return new ConfigError(
    `the store ${location} cannot be written (${(error as Error).message}): free some space or fix its permissions, then run again`,
  );
}

/** Forgets the journal of a service and key: a key the service never accepted leaves nothing behind. */
export async function forgetJournal(place: JournalPlace): Promise<void> {
  const store = await openStore(place);
  try {
    await store.journal(place.service).forget();
  } finally {
    await store.close();
  }
}

/**
 * The imports of each store and service under way in this process: one at a time, since each merges what the store
 * holds with its file (two at once, as `status` reading twice, would each write its own merge, and one would be lost).
 */
const importing = new Map<string, Promise<void>>();

function importInto(
  tables: JournalTables,
  place: JournalPlace,
  warnings: string[],
  stderr: NodeJS.WritableStream | undefined,
  location: string,
): Promise<void> {
  const key = `${location}\n${place.service}`;
  const before = importing.get(key) ?? Promise.resolve();
  const done = before.then(() => importEach(tables, place, warnings, stderr, location));
  const settled = done.catch(() => undefined);
  importing.set(key, settled);
  void settled.then(() => importing.get(key) === settled && importing.delete(key));
  return done;
}

async function importEach(
  tables: JournalTables,
  place: JournalPlace,
  warnings: string[],
  stderr: NodeJS.WritableStream | undefined,
  location: string,
): Promise<void> {
  for (const path of place.jsonl) {
    const imported = await importOldJournal(tables, path);
    if (imported === undefined) continue;
    stderr?.write(`payer-onboard: ${importedLine(imported, location)}\n`);
    if (imported.corrupt > 0) {
      const warning = `journal ${path}: skipped ${imported.corrupt} unreadable line${imported.corrupt === 1 ? '' : 's'} (a crash mid-write); what they recorded is read back from the service before anything is created again`;
      warnings.push(warning);
      stderr?.write(`warning: ${warning}\n`);
    }
  }
}

function importedLine(imported: Imported, location: string): string {
  return (
    `imported the journal ${imported.path} into the store ${location} (${imported.payers} payers, ` +
    `${imported.calls} calls); the old file is kept as it was, and read no more`
  );
}

/** A journal is kept per API and key: a rotated key starts afresh. Say so, since what it forgets matters. */
function warnOfOtherKeys(
  place: JournalPlace,
  services: readonly string[],
  warnings: string[],
  stderr: NodeJS.WritableStream | undefined,
): void {
  const host = place.service.replace(/-[0-9a-f]{12}$/, '');
  const others = services.filter((name) => name !== place.service && name.startsWith(`${host}-`));
  if (others.length === 0) return;
  const warning =
    `no journal of this API key at ${host} yet (${others.length} of another key in ${place.stateDir}): this run starts a new one. ` +
    'What was registered is read back from the service, so nothing is created twice, but payer cells changed since ' +
    'they were registered cannot be noticed, and --max-wait counts from today';
  warnings.push(warning);
  stderr?.write(`warning: ${warning}\n`);
}
