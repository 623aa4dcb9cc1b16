import { join } from 'node:path';
import type { JournalPlace } from './openJournal.js';
import { StateLock } from './StateLock.js';
import {
  journalName,
  journalPlace,
  serviceIdentity,
  type StateDirs,
  type UserPlaces,
  userStateDir,
} from './stateDir.js';

export interface HoldSpec {
  state: StateDirs;
  places: UserPlaces;
  baseUrl: string;
  apiKey: string;
  runId: string;
  /** A PostgreSQL database that keeps the journal, if one is given. */
  databaseUrl?: string | undefined;
}

/** A run's hold on its service and journal: where its journal is, and the locks to release at the end. */
export interface HeldJournal {
  place: JournalPlace;
  release(): void;
}

/**
 * Takes what a run needs before it sends anything: the lock of its service and key, where every run of this user
 * sees it whatever its state dir (two runs each with a journal of their own would both create what neither has
 * recorded), then the lock of its journal (a state dir shared by two users or machines). Locks are named like the
 * old journal folders, by a hash: never the key. With the default state dir both locks are the one file.
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
    return { place: journalPlace(state, spec.baseUrl, spec.apiKey, spec.databaseUrl), release };
  } catch (error) {
    release();
    throw error;
  }
}
