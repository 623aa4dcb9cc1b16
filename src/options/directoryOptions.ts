import { join, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { readSecretFile } from './connection.js';
import type { OptionDef } from './OptionDef.js';
import { RUN_OPTIONS } from './runOptions.js';

// The options of `directory import` and `forget`: which service and key's payers (the store keeps each base URL and
// key apart, as runs do) and which store. Nothing is sent to the service: the URL and key only name the store's part.

/** Which service and key's directory, and the store it is in: what both commands take. */
export const FORGET_OPTIONS = {
  baseUrl: {
    flag: 'base-url',
    type: 'string',
    value: 'URL',
    env: 'PAYER_API_BASE_URL',
    describe:
      "the API root the runs used (required): the store keeps each base URL and key's payers apart; nothing is sent to it",
  },
  apiKeyFile: {
    flag: 'api-key-file',
    type: 'string',
    value: 'FILE',
    describe:
      "file holding the API key the runs used; without it the key comes from `PAYER_API_KEY`, never from a flag value; one or the other is required (only a hash of it names the store's part)",
  },
  inbox: {
    flag: 'inbox',
    type: 'string',
    value: 'DIR',
    describe:
      "serve's inbox folder: the store of its state dir (`.payer-onboard` there unless `--state-dir` or `PAYER_ONBOARD_STATE_DIR` says otherwise)",
  },
  stateDir: {
    flag: 'state-dir',
    type: 'string',
    value: 'DIR',
    defaultText: RUN_OPTIONS.stateDir.defaultText,
    env: 'PAYER_ONBOARD_STATE_DIR',
    describe: 'the state dir whose store (`payer-onboard.db`) holds the directory',
  },
  databaseUrlFile: {
    flag: 'database-url-file',
    type: 'string',
    value: 'FILE',
    describe:
      'file holding the URL of the PostgreSQL database the store is in; without it the URL comes from `PAYER_ONBOARD_DATABASE_URL`, never from a flag value; with neither, the store is SQLite in `--state-dir`',
  },
} as const satisfies Record<string, OptionDef>;

/** `directory import`'s: the same, and how its files are read, as `validate` reads them. */
export const DIRECTORY_OPTIONS = {
  ...FORGET_OPTIONS,
  sheet: RUN_OPTIONS.sheet,
  map: RUN_OPTIONS.map,
  dateFormat: RUN_OPTIONS.dateFormat,
  encoding: RUN_OPTIONS.encoding,
} as const satisfies Record<string, OptionDef>;

/** Where the directory of one service and key is: its base URL and key, and the store's state dir or database. */
export interface DirectoryWhere {
  baseUrl: string;
  apiKey: string;
  /** As given (flag or environment); the default state dir otherwise. */
  stateDir: string | undefined;
  databaseUrl: string | undefined;
}

/**
 * The service, key and store from the flags (by their table names) and the environment; every problem at once (exit 2).
 * A flag wins over the environment.
 */
export function resolveDirectoryWhere(
  given: Partial<Record<keyof typeof FORGET_OPTIONS, string>>,
  env: NodeJS.ProcessEnv,
  cwd: string,
): DirectoryWhere {
  const problems: string[] = [];
  const baseUrl = (given.baseUrl ?? env.PAYER_API_BASE_URL) || undefined;
  if (baseUrl === undefined)
    problems.push(
      '--base-url: give the API root the runs used (or set PAYER_API_BASE_URL): the store keeps the payers of each base URL and key apart',
    );
  let apiKey: string | undefined;
  try {
    apiKey =
      given.apiKeyFile === undefined
        ? env.PAYER_API_KEY || undefined
        : readSecretFile(given.apiKeyFile, '--api-key-file', cwd);
    if (apiKey === undefined)
      problems.push(
        'no API key found: set PAYER_API_KEY, or put the key the runs used in a file and give --api-key-file FILE (nothing is sent with it)',
      );
  } catch (error) {
    problems.push((error as Error).message);
  }
  let databaseUrl: string | undefined;
  try {
    databaseUrl =
      given.databaseUrlFile === undefined
        ? env.PAYER_ONBOARD_DATABASE_URL || undefined
        : readSecretFile(given.databaseUrlFile, '--database-url-file', cwd);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'), 'E_USAGE');
  return {
    baseUrl: baseUrl!,
    apiKey: apiKey!,
    // serve keeps its store in its inbox's `.payer-onboard` unless told otherwise: the same default here.
    stateDir:
      (given.stateDir ?? env.PAYER_ONBOARD_STATE_DIR) ||
      (given.inbox ? join(resolve(cwd, given.inbox), '.payer-onboard') : undefined),
    databaseUrl,
  };
}
