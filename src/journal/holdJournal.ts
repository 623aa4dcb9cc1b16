import { hostname } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../store/openStore.js';
import type { Hold, Store } from '../store/Store.js';
import type { JournalPlace } from './openJournal.js';
import { ServiceLock } from './ServiceLock.js';
import { StateLock } from './StateLock.js';
import { StoreLock } from './StoreLock.js';
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
  /** The store, open already for the process's life (serve's): held and written through, closed by its owner. */
  store?: Store | undefined;
}

/** A run's hold on its service and key: where its journal is, and the locks to release at the end. */
export interface HeldJournal {
  /** Where the journal is; with `open`, the store as the hold writes it (where a hold checks its writes). */
  place: JournalPlace;
  release(): Promise<void>;
  /**
   * Told if a hold is lost while the run goes on (a shared store's lease ran out or was taken over): the run must stop
   * sending. The function returned stops telling this listener.
   */
  onLost(listener: (why: string) => void): () => void;
}

/**
 * Takes what a run needs before it sends anything: its service and key, held for every process of this machine
 * whatever its user, home or state dir (two runs each with a journal of their own would both create what neither has
 * recorded), and for every process that shares its store: the state dir's (a container that mounts it), or a
 * database every machine that shares it sees. Named by the service and a hash
 * of the key: never the key. The service goes by what the URL names, however it is spelled (case, `localhost`, a
 * default port, `/x/..`): two runs that spell it differently still talk to one service.
 */
export async function holdJournal(spec: HoldSpec): Promise<HeldJournal> {
  const { state, runId } = spec;
  const service = journalName(serviceIdentity(spec.baseUrl), spec.apiKey);
  const using = `${spec.baseUrl.replace(/\/+$/, '')} with this API key`;
  const place = journalPlace(state, spec.baseUrl, spec.apiKey, spec.databaseUrl);
  const releases: Array<() => void | Promise<void>> = [];
  let shared: Hold | undefined;
  const release = async () => {
    for (const step of releases.splice(0).reverse()) await step();
  };
  try {
    const holder = { runId, stateDir: state.dir };
    const me = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), ...holder };
    // On a database, its lease holds it for every process that shares the database, this machine's too: a lock of
    // the machine besides would outlive a holder stopped with SIGSTOP, and keep a second serve here from taking over.
    const onDatabase = spec.databaseUrl !== undefined;
    if (!onDatabase) {
      if (process.platform === 'linux') {
        const lock = await ServiceLock.acquire(service, holder, using);
        releases.push(() => lock.release());
      } else {
        // Elsewhere a file every run of this user sees (no abstract sockets): two users of one machine are not held.
        const path = join(userStateDir(spec.places), 'locks', `${service}.lock`);
        const lock = StateLock.acquire(path, runId, { what: 'run', using, stateDir: state.dir });
        releases.push(() => lock.release());
      }
      // The state dir's store, whoever shares it (a container with it mounted has a network, and a lock, of its own).
      const lock = StoreLock.acquire(state.dir, service, me, using);
      releases.push(() => lock.release());
    }
    if (onDatabase || spec.store !== undefined) {
      let store = spec.store;
      if (store === undefined) {
        const opened = await openStore(place);
        releases.push(() => opened.close());
        store = opened;
      }
      const hold = await store.hold(service, me, using);
      releases.push(() => hold.release());
      shared = hold;
    }
    return {
      place: shared === undefined ? place : { ...place, open: shared.store },
      release,
      onLost: (listener) => shared?.onLost(listener) ?? (() => undefined),
    };
  } catch (error) {
    await release();
    throw error;
  }
}
