import type { OptionDef } from './OptionDef.js';
import { STEPS } from '../core/types.js';
import type { CompliancePath } from '../core/schemas.js';

// The table of `run`'s options and which commands take each: a flag, its help and its row in the docs cannot drift
// apart. It is what `--help` reads, so it stays free of zod and of every check library: each option's check is in
// resolve.ts (RUN_CHECKS, one per name here, which the compiler holds to this table).

/** The commands that take `run`'s options. */
export type RunCommandName = 'run' | 'validate' | 'inbox' | 'status';

interface RunOptionDef extends OptionDef {
  /** The commands that take it: validate sends nothing, and the inbox names each file's output folder itself. */
  commands: readonly RunCommandName[];
  /** Its `--help` line for a command where `describe` would name an option that command does not take. */
  describeFor?: Partial<Record<RunCommandName, string>>;
  /** Its default, for a command whose default differs (the inbox keeps its state beside its folders). */
  defaultTextFor?: Partial<Record<RunCommandName, string>>;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Where create compliance is served; the schema module's COMPLIANCE_PATHS, which a test holds this to. */
const COMPLIANCE_PATHS = ['/v1/payer', '/v2/payer'] as const satisfies readonly CompliancePath[];

const EVERY = ['run', 'validate', 'inbox'] as const;
const SENDING = ['run', 'inbox'] as const;
/** `status` reads the same files and talks to the same API with the same client, and writes nothing to it. */
const ALL = [...EVERY, 'status'] as const;
const CALLING = [...SENDING, 'status'] as const;

/**
 * The options of `run`, and of `validate` and `inbox` as `commands` says: the yargs flags and `--help`, the
 * table in the docs, and the defaults a library caller of `run()` gets. A given flag wins over the
 * environment, which wins over the default.
 */
export const RUN_OPTIONS = {
  baseUrl: {
    flag: 'base-url',
    type: 'string',
    value: 'URL',
    env: 'PAYER_API_BASE_URL',
    describe:
      'API root (required unless `--sandbox`); must be https, or http to loopback; without `/v1` or `/v2` (the paths carry their version)',
    describeFor: {
      status:
        'API root (required); must be https, or http to loopback; without `/v1` or `/v2` (the paths carry their version)',
    },
    commands: CALLING,
  },
  apiKeyFile: {
    flag: 'api-key-file',
    type: 'string',
    value: 'FILE',
    describe:
      'file holding the API key, sent as `x-api-key`; without it the key comes from `PAYER_API_KEY`, never from a flag value (shell history, `ps`); one or the other is required unless `--sandbox` or `--dry-run`',
    describeFor: {
      status:
        'file holding the API key, sent as `x-api-key`; without it the key comes from `PAYER_API_KEY`, never from a flag value (shell history, `ps`); one or the other is required',
    },
    commands: CALLING,
  },
  bankDetails: {
    flag: 'bank-details',
    type: 'string',
    value: 'FILE',
    describe: 'a second file of bank rows (CSV, JSONL or `.xlsx`) joined to payers by `clientUserId`',
    commands: ALL,
  },
  sheet: {
    flag: 'sheet',
    type: 'string',
    value: 'NAME',
    defaultText: 'the first sheet',
    describe: 'the sheet of an `.xlsx` input to read',
    commands: ALL,
  },
  map: {
    flag: 'map',
    type: 'string',
    value: 'MAP',
    describe:
      'column names not understood on their own, each with the field it holds: `FROM=TO` pairs, comma separated (`--map "Type=beneficiaryType,Zip Code=postcode"`), the same as JSON (`{"Type": "beneficiaryType"}`), or a file of that JSON',
    commands: ALL,
  },
  splitName: {
    flag: 'split-name',
    type: 'string',
    value: 'COLUMN',
    describe:
      "a column of people's whole names (QuickBooks' `Full Name`) read as the first name and the last: the last word is the last name (`Mary Ann Smith`), or what comes before a comma (`Smith, Mary Ann`); a single word is that row's problem",
    commands: ALL,
  },
  dateFormat: {
    flag: 'date-format',
    type: 'string',
    value: 'F',
    defaultText: '`YYYY-MM-DD` only',
    describe: 'how to read other dates, e.g. `MM/DD/YYYY`, `DD.MM.YYYY`; they are converted',
    commands: EVERY,
  },
  encoding: {
    flag: 'encoding',
    type: 'string',
    value: 'ENC',
    defaultText: 'detected',
    describe:
      'what a CSV that is not UTF-8 is written in, e.g. `windows-1252`, `macintosh` (Excel for Mac), `iso-8859-2`, `windows-1250`; files in UTF-8 or with a byte order mark are read as such',
    commands: ALL,
  },
  out: {
    flag: 'out',
    type: 'string',
    value: 'DIR',
    defaultText: '`./payer-onboard-results/<run id>/`',
    describe: 'where results, failed rows, summary and log go',
    commands: ['run', 'validate', 'status'],
  },
  limit: {
    flag: 'limit',
    type: 'number',
    value: 'N',
    describe:
      'a trial run: only the first N data rows of each file are checked and sent; the rest are `skipped` (in the pending file) and left for the next run',
    commands: ['run'],
  },
  only: {
    flag: 'only',
    type: 'string',
    value: 'IDS',
    describe:
      'a trial run: only the rows of these `clientUserId`s (comma separated) are checked and sent; the rest are `skipped` (in the pending file) and left for the next run; an id no row has is named at the end',
    commands: ['run'],
  },
  concurrency: {
    flag: 'concurrency',
    type: 'number',
    value: 'N',
    default: 8,
    env: 'PAYER_ONBOARD_CONCURRENCY',
    describe:
      'payers in flight at once; each sends its payment details and agreement together, so at most 2 x N requests are in flight',
    commands: CALLING,
  },
  rate: {
    flag: 'rate',
    type: 'number',
    value: 'N',
    default: 5,
    env: 'PAYER_ONBOARD_RATE',
    describe: 'requests per second at most, all calls together; 0 = no cap',
    commands: CALLING,
  },
  retries: {
    flag: 'retries',
    type: 'number',
    value: 'N',
    default: 5,
    describe:
      'retries per call for 408, 5xx and network errors, with backoff and jitter (a 429 is waited out, not counted); `Retry-After` honoured (a bank account: a read settles an unclear answer before each new attempt)',
    commands: CALLING,
  },
  timeout: {
    flag: 'timeout',
    type: 'number',
    value: 'S',
    default: 30,
    describe: 'seconds per attempt',
    commands: CALLING,
  },
  steps: {
    flag: 'steps',
    type: 'string',
    value: 'LIST',
    default: STEPS.join(','),
    describe: 'which calls to make',
    commands: EVERY,
  },
  agreementSignedElsewhere: {
    flag: 'agreement-signed-elsewhere',
    type: 'boolean',
    default: false,
    describe:
      "every payer of the file signed the agreement outside the tool (on paper, in the service's dashboard): complete it for rows whose `agreementCompleted` cell is blank",
    // A statement about the files given now: an inbox or serve would apply it to whatever is dropped later, and
    // to rows an earlier file left waiting.
    commands: ['run', 'validate'],
  },
  dryRun: {
    flag: 'dry-run',
    type: 'boolean',
    default: false,
    describe: 'check the input and write results, send nothing: the same as `validate`',
    commands: SENDING,
  },
  compliancePath: {
    flag: 'compliance-path',
    type: 'string',
    value: 'P',
    default: '/v2/payer',
    choices: COMPLIANCE_PATHS,
    describe:
      "where create compliance is served: `/v2/payer` (the service's current path) or `/v1/payer` (the first documented; deprecated by the service)",
    commands: SENDING,
  },
  maxWait: {
    flag: 'max-wait',
    type: 'number',
    value: 'DAYS',
    default: 30,
    describe:
      'a row waiting on its payer (KYC, agreement) longer than this, counted from its first run, is reported `failed`',
    commands: SENDING,
  },
  createUnmatchedAccounts: {
    flag: 'create-unmatched-accounts',
    type: 'boolean',
    default: false,
    describe:
      "create a row's bank account even where the service lists accounts of its payer that its reads show too little of to compare (once a person has checked none of them is the row's)",
    commands: SENDING,
  },
  stateDir: {
    flag: 'state-dir',
    type: 'string',
    value: 'DIR',
    defaultText: '`$XDG_STATE_HOME/payer-onboard`, else `~/.local/state/payer-onboard`',
    defaultTextFor: { inbox: "`.payer-onboard` in the inbox's folder" },
    describeFor: {
      inbox:
        "where the store (payer-onboard.db) keeps the inbox's journal that makes re-runs and crashes safe (keep it); an older version's journal.jsonl found there is imported once",
    },
    env: 'PAYER_ONBOARD_STATE_DIR',
    describe:
      "where the store (payer-onboard.db) keeps the journal that makes re-runs and crashes safe (keep it); by default the same for runs from every folder, and an older version's journal.jsonl found there or in `./.payer-onboard` is imported once",
    commands: CALLING,
  },
  databaseUrlFile: {
    flag: 'database-url-file',
    type: 'string',
    value: 'FILE',
    describe:
      'file holding the URL of a PostgreSQL database (`postgres://USER:PASSWORD@HOST:PORT/DB`) to keep the store in, for a team of machines; without it the URL comes from `PAYER_ONBOARD_DATABASE_URL`, never from a flag value; with neither, the store is SQLite in `--state-dir`',
    commands: CALLING,
  },
  allowHttp: {
    flag: 'allow-http',
    type: 'boolean',
    default: false,
    describe: 'permit a plain `http://` base URL that is not loopback',
    commands: CALLING,
  },
  maxConsecutiveFailures: {
    flag: 'max-consecutive-failures',
    type: 'number',
    value: 'N',
    default: 20,
    describe: 'stop as "API down" after this many calls in a row failed for good',
    commands: CALLING,
  },
  maxBlockWait: {
    flag: 'max-block-wait',
    type: 'number',
    value: 'MINUTES',
    default: 10,
    describe:
      'minutes: nothing but 429s for 30 s is the service blocking this key and address (its documents: 5 minutes): sending pauses, probing once a minute, for at most this long; then the run stops (exit 3), its rows pending',
    commands: CALLING,
  },
  logFile: {
    flag: 'log-file',
    type: 'string',
    value: 'FILE',
    defaultText: '`<out>/run.log`',
    describe: 'pino JSON log; rows named by `source:line` and `clientUserId`, never a personal value or the key',
    commands: ALL,
  },
  logLevel: {
    flag: 'log-level',
    type: 'string',
    value: 'L',
    default: 'info',
    env: 'PAYER_ONBOARD_LOG_LEVEL',
    choices: LOG_LEVELS,
    describe: `what the log keeps: ${LOG_LEVELS.map((level) => `\`${level}\``).join(', ')}`,
    commands: ALL,
  },
  progress: {
    flag: 'progress',
    type: 'boolean',
    defaultText: 'on when stderr is a terminal',
    describe: 'progress bar on stderr: rows done, ok/invalid/failed, rows/s, ETA',
    commands: ALL,
  },
  json: {
    flag: 'json',
    type: 'boolean',
    default: false,
    describe: 'print the summary as JSON on stdout, nothing else on stdout',
    commands: ALL,
  },
  exitCode: {
    flag: 'exit-code',
    type: 'boolean',
    commands: ['status'],
    default: false,
    describe:
      'exit 1 while some payer is not yet payable (as `git diff --exit-code`), for scripts that ask "are we done?"',
  },
  sandbox: {
    flag: 'sandbox',
    type: 'boolean',
    default: false,
    describe: 'start the built-in sandbox and run against it: a rehearsal that needs no key',
    commands: SENDING,
  },
} as const satisfies Record<string, RunOptionDef>;

export type RunOptionName = keyof typeof RUN_OPTIONS;

/** An option as `command`'s `--help` shows it: its own words for that command where it has them. */
export function runOptionFor(name: RunOptionName, command: RunCommandName): OptionDef {
  const def: RunOptionDef = RUN_OPTIONS[name];
  const describe = def.describeFor?.[command];
  const defaultText = def.defaultTextFor?.[command];
  return {
    ...def,
    ...(describe === undefined ? {} : { describe }),
    ...(defaultText === undefined ? {} : { defaultText }),
  };
}

/** The options a command takes, in the table's order. */
export function runOptionNames(command: RunCommandName): RunOptionName[] {
  return (Object.keys(RUN_OPTIONS) as RunOptionName[]).filter((name) =>
    (RUN_OPTIONS[name].commands as readonly RunCommandName[]).includes(command),
  );
}
