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

const REDACT_PATHS = [
  ...SENSITIVE_FIELDS,
  ...SENSITIVE_FIELDS.map((f) => `*.${f}`),
  ...SENSITIVE_FIELDS.map((f) => `*.*.${f}`),
  'apiKey',
  '*.apiKey',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'req.headers["x-api-key"]',
  'body',
  '*.body',
];

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
  let failed = false;
  const fail = (error: Error): void => {
    if (failed) return;
    failed = true;
    abandon(destination);
    onError(error);
  };
  destination.on('error', fail);
  const logger = pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } },
    destination,
  );
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
