import { z } from 'zod';
import type { OptionDef } from './commandOptions.js';
import { LOG_LEVELS } from './log.js';
import { DATE_FORMAT } from './validate/cellTexts.js';
import { singleByteName } from './input/encodings.js';
import { STEPS, type Step } from './types.js';
import { COMPLIANCE_PATHS } from './schema/index.js';

// The table of `run`'s options and which commands take each, one entry per option with its check, so a flag, its
// help, its README row and its check cannot drift apart. options.ts turns the table into one checked object.

/** The commands that take `run`'s options. */
export type RunCommandName = 'run' | 'validate' | 'inbox' | 'status';

interface RunOptionDef extends OptionDef {
  /** The commands that take it: validate sends nothing, and the inbox names each file's output folder itself. */
  commands: readonly RunCommandName[];
  /** Checks a value, from a flag, the environment, the default or a library caller. */
  schema: z.ZodType;
}

const EVERY = ['run', 'validate', 'inbox'] as const;
const SENDING = ['run', 'inbox'] as const;
/** `status` reads the same files and talks to the same API with the same client, and writes nothing to it. */
const ALL = [...EVERY, 'status'] as const;
const CALLING = [...SENDING, 'status'] as const;

const count = (min: number) =>
  z.number({ error: 'must be a number' }).int('must be a whole number').min(min, `must be at least ${min}`);

const stepsList = z.union([z.string(), z.array(z.string())]).transform((value, ctx): Step[] => {
  const steps = (Array.isArray(value) ? value : value.split(/[,;\s]+/)).filter(Boolean);
  const unknown = steps.filter((s) => !(STEPS as readonly string[]).includes(s));
  if (unknown.length > 0 || steps.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown step ${unknown.map((s) => `"${s}"`).join(', ') || '(none given)'}: use ${STEPS.join(', ')}`,
    });
    return z.NEVER;
  }
  return STEPS.filter((s) => steps.includes(s));
});

/**
 * The options of `run`, and of `validate` and `inbox` as `commands` says: the yargs flags and `--help`, the
 * README's table, the checks, and the defaults a library caller of `run()` gets. A given flag wins over the
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
    commands: CALLING,
    schema: z.string(),
  },
  apiKeyFile: {
    flag: 'api-key-file',
    type: 'string',
    value: 'FILE',
    describe:
      'file holding the API key, sent as `x-api-key`; without it the key comes from `PAYER_API_KEY`, never from a flag value (shell history, `ps`); one or the other is required unless `--sandbox` or `--dry-run`',
    commands: CALLING,
    schema: z.string(),
  },
  bankDetails: {
    flag: 'bank-details',
    type: 'string',
    value: 'FILE',
    describe: 'a second file of bank rows (CSV, JSONL or `.xlsx`) joined to payers by `clientUserId`',
    commands: ALL,
    schema: z.string(),
  },
  sheet: {
    flag: 'sheet',
    type: 'string',
    value: 'NAME',
    defaultText: 'the first sheet',
    describe: 'the sheet of an `.xlsx` input to read',
    commands: ALL,
    schema: z.string().min(1, 'give a sheet name'),
  },
  map: {
    flag: 'map',
    type: 'string',
    value: 'FILE',
    describe: 'JSON `{"Their column": "fieldName"}` for column names not understood on their own',
    commands: ALL,
    schema: z.string().min(1, 'give a JSON file'),
  },
  dateFormat: {
    flag: 'date-format',
    type: 'string',
    value: 'F',
    defaultText: '`YYYY-MM-DD` only',
    describe: 'how to read other dates, e.g. `MM/DD/YYYY`, `DD.MM.YYYY`; they are converted',
    commands: EVERY,
    schema: z
      .string()
      .transform((text) => text.toUpperCase())
      .pipe(
        z
          .string()
          .regex(
            DATE_FORMAT,
            'must be YYYY, MM and DD in some order with / . or - between, e.g. MM/DD/YYYY or DD.MM.YYYY',
          ),
      ),
  },
  encoding: {
    flag: 'encoding',
    type: 'string',
    value: 'ENC',
    defaultText: 'detected',
    describe:
      'what a CSV that is not UTF-8 is written in, e.g. `windows-1252`, `macintosh` (Excel for Mac), `iso-8859-2`, `windows-1250`; files in UTF-8 or with a byte order mark are read as such',
    commands: ALL,
    schema: z.string().transform((label, ctx) => {
      const name = singleByteName(label);
      if (name === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `"${label}" is not a single-byte encoding such as windows-1252, macintosh or iso-8859-2`,
        });
        return z.NEVER;
      }
      return name;
    }),
  },
  out: {
    flag: 'out',
    type: 'string',
    value: 'DIR',
    defaultText: '`./payer-onboard-results/<run id>/`',
    describe: 'where results, failed rows, summary and log go',
    commands: ['run', 'validate', 'status'],
    schema: z.string(),
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
    schema: count(1).max(256, 'must be at most 256'),
  },
  rate: {
    flag: 'rate',
    type: 'number',
    value: 'N',
    default: 5,
    env: 'PAYER_ONBOARD_RATE',
    describe: 'requests per second at most, all calls together; 0 = no cap',
    commands: CALLING,
    schema: z.number({ error: 'must be a number' }).min(0, 'must be 0 (no cap) or more'),
  },
  retries: {
    flag: 'retries',
    type: 'number',
    value: 'N',
    default: 5,
    describe:
      'retries per call for 408, 429, 5xx and network errors, with backoff and jitter; `Retry-After` honoured (a bank account: a read settles an unclear answer before each new attempt)',
    commands: CALLING,
    schema: count(0).max(20, 'must be at most 20'),
  },
  timeout: {
    flag: 'timeout',
    type: 'number',
    value: 'S',
    default: 30,
    describe: 'seconds per attempt',
    commands: CALLING,
    schema: z.number({ error: 'must be a number' }).positive('must be more than 0'),
  },
  steps: {
    flag: 'steps',
    type: 'string',
    value: 'LIST',
    default: STEPS.join(','),
    describe: 'which calls to make',
    commands: EVERY,
    schema: stepsList,
  },
  completeAgreement: {
    flag: 'complete-agreement',
    type: 'boolean',
    default: true,
    describe: 'complete the agreement of rows whose `agreementCompleted` cell is blank',
    commands: EVERY,
    schema: z.boolean(),
  },
  dryRun: {
    flag: 'dry-run',
    type: 'boolean',
    default: false,
    describe: 'check the input and write results, send nothing: the same as `validate`',
    commands: SENDING,
    schema: z.boolean(),
  },
  compliancePath: {
    flag: 'compliance-path',
    type: 'string',
    value: 'P',
    default: '/v1/payer',
    choices: COMPLIANCE_PATHS,
    describe:
      'where create compliance is served: `/v1/payer`, or `/v2/payer` (create or update: changed payer data is sent again)',
    commands: SENDING,
    schema: z.enum(COMPLIANCE_PATHS, { error: `must be ${COMPLIANCE_PATHS.join(' or ')}` }),
  },
  maxWait: {
    flag: 'max-wait',
    type: 'number',
    value: 'DAYS',
    default: 30,
    describe:
      'a row waiting on its payer (KYC, agreement) longer than this, counted from its first run, is reported `failed`',
    commands: SENDING,
    schema: z.number({ error: 'must be a number' }).positive('must be more than 0'),
  },
  stateDir: {
    flag: 'state-dir',
    type: 'string',
    value: 'DIR',
    default: '.payer-onboard',
    env: 'PAYER_ONBOARD_STATE_DIR',
    describe: 'the journal that makes re-runs and crashes safe (keep it)',
    commands: CALLING,
    schema: z.string().min(1),
  },
  allowHttp: {
    flag: 'allow-http',
    type: 'boolean',
    default: false,
    describe: 'permit a plain `http://` base URL that is not loopback',
    commands: CALLING,
    schema: z.boolean(),
  },
  maxConsecutiveFailures: {
    flag: 'max-consecutive-failures',
    type: 'number',
    value: 'N',
    default: 20,
    describe: 'stop as "API down" after this many calls in a row failed for good',
    commands: CALLING,
    schema: count(1),
  },
  logFile: {
    flag: 'log-file',
    type: 'string',
    value: 'FILE',
    defaultText: '`<out>/run.log`',
    describe: 'pino JSON log; rows named by `source:line` and `clientUserId`, never a personal value or the key',
    commands: ALL,
    schema: z.string(),
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
    schema: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  },
  progress: {
    flag: 'progress',
    type: 'boolean',
    defaultText: 'on when stderr is a terminal',
    describe: 'progress bar on stderr: rows done, ok/invalid/failed, rows/s, ETA',
    commands: ALL,
    schema: z.boolean(),
  },
  json: {
    flag: 'json',
    type: 'boolean',
    default: false,
    describe: 'print the summary as JSON on stdout, nothing else on stdout',
    commands: ALL,
    schema: z.boolean(),
  },
  exitCode: {
    flag: 'exit-code',
    type: 'boolean',
    commands: ['status'],
    default: false,
    describe:
      'exit 1 while some payer is not yet payable (as `git diff --exit-code`), for scripts that ask "are we done?"',
    schema: z.boolean(),
  },
  sandbox: {
    flag: 'sandbox',
    type: 'boolean',
    default: false,
    describe: 'start the built-in sandbox and run against it: a rehearsal that needs no key',
    commands: SENDING,
    schema: z.boolean(),
  },
} as const satisfies Record<string, RunOptionDef>;

export type RunOptionName = keyof typeof RUN_OPTIONS;

/** The options a command takes, in the table's order. */
export function runOptionNames(command: RunCommandName): RunOptionName[] {
  return (Object.keys(RUN_OPTIONS) as RunOptionName[]).filter((name) =>
    (RUN_OPTIONS[name].commands as readonly RunCommandName[]).includes(command),
  );
}
