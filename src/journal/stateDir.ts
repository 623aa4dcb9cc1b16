import { createHash } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';
import type { JournalPlace } from './openJournal.js';

/**
 * The folder of one API's journal inside the state dir: one per base URL and key, so a rehearsal against a sandbox
 * never makes a real run think its payers exist (the real service's sandbox is a setting of the key, on the same
 * host). Named by host for people and by a hash for uniqueness. A new key starts a new journal: the reads of what
 * the service stores keep that safe, at a read a row.
 */
export function journalDir(stateDir: string, baseUrl: string, apiKey: string): string {
  return join(stateDir, journalName(baseUrl, apiKey));
}

/** `<host>-<hash>`: the name of one base URL and key's journal folder, and of its lock. */
export function journalName(baseUrl: string, apiKey: string): string {
  const normalized = baseUrl.replace(/\/+$/, '');
  const keyHash = createHash('sha256').update(apiKey).digest('hex');
  const hash = createHash('sha256').update(`${normalized}\u0000${keyHash}`).digest('hex').slice(0, 12);
  return `${serviceHost(normalized)}-${hash}`;
}

/**
 * The service a base URL names, one spelling for all of its spellings: scheme and host in lower case (the URL parser
 * does that, and resolves `..`), every loopback name as one, the default port written out, no trailing slash.
 */
export function serviceIdentity(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return `${url.protocol}//${loopback ? 'loopback' : url.hostname}:${port}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
}

/** The host of a base URL, safe as part of a file name. */
function serviceHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host.replace(/[^a-zA-Z0-9.-]/g, '_');
  } catch {
    // checked earlier; the hash alone still keeps journals apart
    return 'api';
  }
}

/** Where a command looks for the user's home and the working directory; the process's own unless told. */
export interface UserPlaces {
  cwd: string;
  env: NodeJS.ProcessEnv;
  home: string;
}

/** The old default state dir, relative to the working directory: found and moved by a run that uses the default. */
const OLD_STATE_DIR = '.payer-onboard';

/**
 * The user's state folder: `$XDG_STATE_HOME/payer-onboard`, else `~/.local/state/payer-onboard`. Every run of the
 * user sees it whatever its working directory, so the run locks live there, and so does the default journal: two
 * runs from two folders share one memory instead of each starting its own.
 */
export function userStateDir(places: UserPlaces): string {
  const xdg = places.env.XDG_STATE_HOME;
  // The XDG spec says a relative path there is to be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(places.home, '.local', 'state');
  return join(base, 'payer-onboard');
}

/** The state dir a command uses, and where the journal was kept before the default moved (when it is the default). */
export interface StateDirs {
  dir: string;
  old?: string;
}

export function stateDirs(given: string | undefined, places: UserPlaces): StateDirs {
  if (given !== undefined) return { dir: resolve(places.cwd, given) };
  const dir = userStateDir(places);
  const old = resolve(places.cwd, OLD_STATE_DIR);
  return old === dir ? { dir } : { dir, old };
}

/**
 * Where the journal of one base URL and key is: the store of the state dir, and the JSONL files an older version kept
 * it in (its folder in the state dir, and in the old default place), imported by the first command that opens it.
 */
export function journalPlace(
  state: StateDirs,
  baseUrl: string,
  apiKey: string,
  databaseUrl?: string | undefined,
): JournalPlace {
  const name = journalName(baseUrl, apiKey);
  const jsonl = [join(state.dir, name, 'journal.jsonl')];
  if (state.old !== undefined) jsonl.push(join(state.old, name, 'journal.jsonl'));
  return { stateDir: state.dir, service: name, jsonl, ...(databaseUrl === undefined ? {} : { databaseUrl }) };
}
