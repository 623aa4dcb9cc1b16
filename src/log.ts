import { chmodSync } from 'node:fs';
import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from './runOptionTable.js';

/** Field names whose values are personal data or secrets: never written to a log. */
export const SENSITIVE_FIELDS = [
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
  close(): Promise<void>;
}

/**
 * A pino JSON logger writing to a 0600 file. Redaction is a second line of defence: the code logs rows by
 * `source:line` and clientUserId and never hands a request body or header to the logger in the first place.
 */
export function createLogger(path: string, level: LogLevel): RunLogger {
  const destination = pino.destination({ dest: path, sync: false, mkdir: true, mode: 0o600 });
  const logger = pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } },
    destination,
  );
  // SonicBoom opens asynchronously; force the mode once it exists, in case the file was there before.
  destination.on('ready', () => chmodSync(path, 0o600));
  return {
    logger,
    close: () => closeDestination(destination),
  };
}

function closeDestination(
  destination: DestinationStream & {
    flushSync?: () => void;
    end?: () => void;
    once?: (e: string, f: () => void) => void;
  },
): Promise<void> {
  return new Promise((resolve) => {
    if (!destination.end || !destination.once) return resolve();
    destination.once('close', () => resolve());
    destination.end();
  });
}
