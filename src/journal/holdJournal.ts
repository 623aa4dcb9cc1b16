import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { StateLock } from './StateLock.js';
import { journalDir, journalName, serviceIdentity, type StateDirs, type UserPlaces, userStateDir } from './stateDir.js';

export interface HoldSpec {
  state: StateDirs;
  places: UserPlaces;
  baseUrl: string;
  apiKey: string;
  runId: string;
  /** Where the one line about a journal moved from the old default place goes. */
  stderr: NodeJS.WritableStream | undefined;
}

/** A run's hold on its service and journal: the folder of its journal, and the locks to release at the end. */
export interface HeldJournal {
  dir: string;
  release(): void;
}

/**
 * Takes what a run needs before it sends anything: the lock of its service and key, where every run of this user
 * sees it whatever its state dir (two runs each with a journal of their own would both create what neither has
 * recorded), then the lock of its journal (a state dir shared by two users or machines), and moves a journal kept
 * in the old default place into the new one. Locks are named like the journal folder, by a hash: never the key.
 * With the default state dir both locks are the one file.
 */
export function holdJournal(spec: HoldSpec): HeldJournal {
  const { state, runId } = spec;
  // The service lock goes by the service the URL names, however it is spelled (case, `localhost`, a default port,
  // `/x/..`): two runs that spell it differently still talk to one service and would both create what it lacks.
  const service = journalName(serviceIdentity(spec.baseUrl), spec.apiKey);
  const taken: StateLock[] = [];
  const release = () => {
    for (const lock of taken.reverse()) lock.release();
  };
  try {
    const serviceLock = join(userStateDir(spec.places), 'locks', `${service}.lock`);
    const using = `${spec.baseUrl.replace(/\/+$/, '')} with this API key`;
    taken.push(StateLock.acquire(serviceLock, runId, { what: 'run', using, stateDir: state.dir }));
    const journalLock = join(state.dir, 'locks', `${service}.lock`);
    if (journalLock !== serviceLock)
      taken.push(StateLock.acquire(journalLock, runId, { what: 'run', using: state.dir, stateDir: state.dir }));
    const dir = journalDir(state.dir, spec.baseUrl, spec.apiKey);
    if (state.old !== undefined) moveOldJournal(state.old, dir, spec);
    return { dir, release };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * A journal of this service and key in the old default place (`./.payer-onboard` under the working directory) is
 * moved into the new one, so no payer it remembers is forgotten by the upgrade. Where the new place already has a
 * journal (another folder's, moved first), the old lines go before its own: a journal's later line of a call wins,
 * and the old ones are older. An older version's run still using the old folder holds its lock: that is respected.
 */
function moveOldJournal(oldStateDir: string, dir: string, spec: HoldSpec): void {
  const from = join(oldStateDir, journalName(spec.baseUrl, spec.apiKey));
  if (!existsSync(from)) return;
  const oldLock = StateLock.acquire(join(oldStateDir, 'lock'), spec.runId, {
    what: 'run',
    using: oldStateDir,
    stateDir: spec.state.dir,
  });
  try {
    mkdirSync(spec.state.dir, { recursive: true, mode: 0o700 });
    if (!existsSync(dir)) moveFolder(from, dir);
    else {
      mergeInto(join(from, 'journal.jsonl'), join(dir, 'journal.jsonl'));
      rmSync(from, { recursive: true, force: true });
    }
  } finally {
    oldLock.release();
  }
  for (const dir of [join(oldStateDir, 'locks'), oldStateDir]) {
    try {
      rmdirSync(dir);
    } catch {
      // journals of other services or keys are still there (or a lock in use): each moves when a run uses it
    }
  }
  const line = `moved the journal in ${from} to ${dir}: the state dir is now the same for runs from every folder`;
  spec.stderr?.write(`payer-onboard: ${line}\n`);
}

/** A rename where both are on one filesystem; a copy, then the old one removed, where they are not. */
function moveFolder(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    cpSync(from, to, { recursive: true, preserveTimestamps: true });
    rmSync(from, { recursive: true, force: true });
  }
}

/** The old journal's lines, then the new one's, written whole beside it and renamed over it. */
function mergeInto(oldFile: string, newFile: string): void {
  if (!existsSync(oldFile)) return;
  const old = readFileSync(oldFile);
  const temp = `${newFile}.merge`;
  writeFileSync(temp, old, { mode: 0o600 });
  // A crash can leave the old journal's last line without its newline: end it, so the next line starts its own.
  if (old.length > 0 && old[old.length - 1] !== 0x0a) appendFileSync(temp, '\n');
  if (existsSync(newFile)) appendFileSync(temp, readFileSync(newFile));
  renameSync(temp, newFile);
}
