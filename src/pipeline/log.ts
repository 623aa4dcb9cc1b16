import { chmodSync, statSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { beforeForcedExit } from './forcedExit.js';
import type { LogLevel } from '../options/runOptions.js';

/** Field names whose values are personal data or secrets: never written to a log. */
const SENSITIVE_FIELDS = [
  'ssn',
  'dateOfBirth',
  'accountNumber',
  'iban',
  'routingNumber',
  'documentNumber',
  'email',
  'phone',
];

/** Keys of secrets and request bodies: never written either. */
const SECRET_KEYS = ['apiKey', 'x-api-key', 'body'];

const REDACTED_KEYS: ReadonlySet<string> = new Set([...SENSITIVE_FIELDS, ...SECRET_KEYS]);
/** How deep a logged object is looked into: its own keys, theirs, and theirs again (`row.headers["x-api-key"]`). */
const REDACT_DEPTH = 3;
const CENSOR = '[redacted]';

/**
 * The object with every value under a key of REDACTED_KEYS, down to REDACT_DEPTH levels, replaced by CENSOR: the
 * same object when there is none (the rule, for every line the code writes), a copy of what changes otherwise. One
 * walk of a line's few keys, where pino's `redact` paths (`*.ssn`, `*.*.ssn` for every field) cloned and walked
 * each top-level value once per wildcard path: on a file of invalid rows, a line each, most of the run's time.
 */
function redactLogObject<T extends object>(value: T, depth = REDACT_DEPTH): T {
  let changed: Map<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner === undefined) continue;
    let next = inner;
    if (REDACTED_KEYS.has(key)) next = CENSOR;
    // A Buffer or typed array is bytes, not fields: its indices are never walked.
    else if (depth > 1 && typeof inner === 'object' && inner !== null && !ArrayBuffer.isView(inner))
      next = redactLogObject(inner, depth - 1);
    if (next === inner) continue;
    changed ??= new Map();
    changed.set(key, next);
  }
  return changed === undefined ? value : copyWith(value, changed);
}

/**
 * A copy with `changed` in place: an array's elements, or an object's own properties (an Error's message too, a
 * getter as a plain value) and its prototype, so that pino's `err` serializer still knows an error.
 */
function copyWith<T extends object>(value: T, changed: Map<string, unknown>): T {
  if (Array.isArray(value)) {
    const copy = [...value];
    for (const [key, next] of changed) copy[Number(key)] = next;
    return copy as T;
  }
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(value);
  for (const [key, next] of changed)
    descriptors[key] = { value: next, enumerable: true, writable: true, configurable: true };
  return Object.create(Object.getPrototypeOf(value), descriptors) as T;
}

/**
 * Characters the log may hold unwritten before the rows wait for it (`logRoom`). A file of invalid rows logs a line
 * each, and the reader makes them far faster than one write at a time takes them to the file.
 */
const MAX_BACKLOG = 1 << 20;

/** Each run's logger's wait for room, by logger: the send pass has the logger, not the RunLogger. */
const rooms = new WeakMap<Logger, () => Promise<void> | undefined>();

/**
 * Undefined while the logger's file keeps up (or for a logger not made by createLogger); else a promise that
 * resolves once what it holds is written, or the file is given up. The send pass waits on it before each row.
 */
export function logRoom(logger: Logger): Promise<void> | undefined {
  return rooms.get(logger)?.();
}

export interface RunLogger {
  logger: Logger;
  /** Ends the file; never waits on a file that cannot be written (see `createLogger`). */
  close(): Promise<void>;
}

/** A log that stops short: how long `close()` waits for a healthy file's last lines before giving up on them. */
const CLOSE_WAIT_MS = 5000;

type Boom = ReturnType<typeof pino.destination> & { fd?: number };

/**
 * A pino JSON logger writing to a 0600 file. Redaction is a second line of defence: the code logs rows by
 * `source:line` and clientUserId and never hands a request body or header to the logger in the first place.
 *
 * A write that fails (disk full, read-only, EIO) is reported once through `onError` and the file is given up:
 * SonicBoom keeps the lines it could not write, so `end()` would try them again and never close, and its exit hook
 * (`flushSync`) retries any error but EAGAIN forever, sleeping between tries: the process could then not even be
 * killed by SIGTERM. pino does the same for EPIPE (its `filterBrokenPipe`): the stream's methods become no-ops.
 */
export function createLogger(path: string, level: LogLevel, onError: (error: Error) => void = () => {}): RunLogger {
  const destination: Boom = pino.destination({ dest: path, sync: false, mkdir: true, mode: 0o600 });
  // A second signal exits at once: pino's exit hook would otherwise write the last lines synchronously, forever on a full disk.
  const unregister = beforeForcedExit(() => abandon(destination));
  const backlog = trackBacklog(destination);
  let failed = false;
  const fail = (error: Error): void => {
    if (failed) return;
    failed = true;
    abandon(destination);
    backlog.written();
    onError(error);
  };
  destination.on('error', fail);
  const logger = pino(
    {
      level,
      formatters: { log: redactLogObject, bindings: redactLogObject },
      base: { pid: process.pid },
    },
    destination,
  );
  rooms.set(logger, backlog.room);
  // SonicBoom opens asynchronously; force the mode once it exists, in case the file was there before. Only a file's:
  // a --log-file that is a device or a pipe (/dev/stderr, /dev/full) belongs to the system.
  destination.on('ready', () => {
    try {
      if (statSync(path).isFile()) chmodSync(path, 0o600);
    } catch (error) {
      fail(error as Error);
    }
  });
  return {
    logger,
    close: async () => {
      if (!failed) await closeDestination(destination, fail);
      unregister();
    },
  };
}

/**
 * Counts what the file is handed until it has nothing left to write (SonicBoom's `drain`), and makes `room()` wait
 * for that once the count passes MAX_BACKLOG. An asynchronous SonicBoom otherwise keeps every line it is given until
 * its one write at a time takes it: a run that logs faster held tens of megabytes of lines, more the longer it ran.
 */
function trackBacklog(destination: Boom): { room: () => Promise<void> | undefined; written: () => void } {
  let backlog = 0;
  let wait: { promise: Promise<void>; resolve: () => void } | undefined;
  const write = destination.write.bind(destination);
  destination.write = (data: string) => {
    backlog += data.length;
    return write(data);
  };
  const written = () => {
    backlog = 0;
    wait?.resolve();
    wait = undefined;
  };
  destination.on('drain', written);
  return {
    room: () => {
      if (backlog < MAX_BACKLOG) return undefined;
      if (wait === undefined) {
        let resolve = () => {};
        const promise = new Promise<void>((done) => (resolve = done));
        wait = { promise, resolve };
      }
      return wait.promise;
    },
    written,
  };
}

function abandon(destination: Boom): void {
  const noop = () => {};
  Object.assign(destination, { write: () => true, flush: noop, flushSync: noop, end: noop, reopen: noop });
  // Close the descriptor if it was opened at all (a file that never opened has none, and SonicBoom's close would
  // wait for it to open).
  if ((destination.fd ?? -1) >= 0) {
    try {
      destination.destroy();
    } catch {
      // Already closing: nothing left to release.
    }
  }
}

/** Ends the file and waits for it to close; a failure, or a write stuck past CLOSE_WAIT_MS, gives it up instead. */
function closeDestination(destination: Boom, fail: (error: Error) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      fail(new Error(`its last lines were not written within ${CLOSE_WAIT_MS / 1000} s`));
      resolve();
    }, CLOSE_WAIT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    destination.once('close', done);
    destination.once('error', done);
    destination.end();
  });
}
