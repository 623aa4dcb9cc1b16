import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { Journal } from './Journal.js';

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
 * The journal file of one base URL and key, for a command that only reads it (status, the inbox's waiting files):
 * the old default place until a run has moved it.
 */
export function journalToRead(state: StateDirs, baseUrl: string, apiKey: string): string {
  const dir = journalDir(state.dir, baseUrl, apiKey);
  const old = state.old === undefined ? undefined : journalDir(state.old, baseUrl, apiKey);
  return join(old !== undefined && !existsSync(dir) && existsSync(old) ? old : dir, 'journal.jsonl');
}

/** Opens the journal; lines a crash left half-written are skipped with a warning, never fatal. */
export async function openJournal(
  path: string,
  warnings: string[],
  logger: Logger,
  stderr: NodeJS.WritableStream | undefined,
): Promise<Journal> {
  const dir = dirname(path);
  if (!existsSync(dir)) {
    // A journal is kept per API and key: a rotated key starts afresh. Say so, since what it forgets matters.
    const host = basename(dir).replace(/-[0-9a-f]{12}$/, '');
    const others = readdirSync(dirname(dir)).filter((name) => name !== basename(dir) && name.startsWith(`${host}-`));
    if (others.length > 0) {
      const warning =
        `no journal of this API key at ${host} yet (${others.length} of another key in ${dirname(dir)}): this run starts a new one. ` +
        'What was registered is read back from the service, so nothing is created twice, but payer cells changed since ' +
        'they were registered cannot be noticed, and --max-wait counts from today';
      warnings.push(warning);
      stderr?.write(`warning: ${warning}\n`);
    }
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { journal, load } = await Journal.open(path);
  logger.info({ journal: path, ...load }, 'journal loaded');
  if (load.corrupt > 0) {
    const warning = `journal ${path}: skipped ${load.corrupt} unreadable line${load.corrupt === 1 ? '' : 's'} (a crash mid-write); what they recorded is read back from the service before anything is created again`;
    warnings.push(warning);
    stderr?.write(`warning: ${warning}\n`);
  }
  return journal;
}
