import { z } from 'zod';
import { ConfigError } from './errors.js';
import { LOG_LEVELS } from './log.js';
import { DATE_FORMAT } from './validate/cellTexts.js';
import { STEPS, type Step } from './types.js';
import { COMPLIANCE_PATHS } from './schema/index.js';

/**
 * The one table of `run`/`validate` options: it feeds the yargs definitions, `--help` and the defaults a library
 * caller of `run()` gets, so they cannot disagree (the README's table is kept by hand). Flags win over the environment.
 */
export const RUN_OPTIONS = {
  baseUrl: {
    flag: 'base-url',
    type: 'string',
    env: 'PAYER_API_BASE_URL',
    describe: 'API root; the API paths are appended (required unless --sandbox)',
  },
  apiKeyFile: {
    flag: 'api-key-file',
    type: 'string',
    describe: 'file holding the API key (else PAYER_API_KEY); never a plain flag value',
  },
  bankDetails: {
    flag: 'bank-details',
    type: 'string',
    describe: 'second file of bank rows (CSV, JSONL or xlsx) joined to payers by clientUserId',
  },
  sheet: { flag: 'sheet', type: 'string', describe: 'xlsx: the sheet of payers to read [default: the first sheet]' },
  map: {
    flag: 'map',
    type: 'string',
    describe: 'JSON file naming your columns\' fields: {"Their column": "fieldName"}',
  },
  dateFormat: {
    flag: 'date-format',
    type: 'string',
    describe: 'how to read dates not written YYYY-MM-DD, e.g. MM/DD/YYYY or DD/MM/YYYY; they are converted',
  },
  out: { flag: 'out', type: 'string', describe: 'output folder [default: ./payer-onboard-results/<run id>/]' },
  concurrency: {
    flag: 'concurrency',
    type: 'number',
    default: 8,
    env: 'PAYER_ONBOARD_CONCURRENCY',
    describe:
      'payers in flight at once; each sends its payment details and agreement together, so up to 2 x N requests',
  },
  rate: {
    flag: 'rate',
    type: 'number',
    default: 5,
    env: 'PAYER_ONBOARD_RATE',
    describe: 'requests per second at most, all calls together; 0 = no cap',
  },
  retries: { flag: 'retries', type: 'number', default: 5, describe: 'retries per call for retryable failures' },
  timeout: { flag: 'timeout', type: 'number', default: 30, describe: 'seconds per attempt' },
  steps: { flag: 'steps', type: 'string', default: STEPS.join(','), describe: 'which calls to make' },
  completeAgreement: {
    flag: 'complete-agreement',
    type: 'boolean',
    default: true,
    describe: 'complete the agreement for rows whose agreementCompleted cell is blank',
  },
  dryRun: {
    flag: 'dry-run',
    type: 'boolean',
    default: false,
    describe: 'check the input and write results, send nothing (same as validate)',
  },
  compliancePath: {
    flag: 'compliance-path',
    type: 'string',
    default: '/v1/payer',
    choices: COMPLIANCE_PATHS,
    describe:
      'where create compliance is served: /v1/payer, or /v2/payer (create or update: changed payer data is sent again)',
  },
  maxWait: {
    flag: 'max-wait',
    type: 'number',
    default: 30,
    describe: 'days a row may wait on its payer (KYC, agreement), from its first run, before it is reported failed',
  },
  stateDir: {
    flag: 'state-dir',
    type: 'string',
    default: '.payer-onboard',
    env: 'PAYER_ONBOARD_STATE_DIR',
    describe: 'the journal of calls that makes re-runs safe',
  },
  allowHttp: {
    flag: 'allow-http',
    type: 'boolean',
    default: false,
    describe: 'permit a plain http:// base URL that is not loopback',
  },
  maxConsecutiveFailures: {
    flag: 'max-consecutive-failures',
    type: 'number',
    default: 20,
    describe: 'stop as "API down" after this many calls in a row failed for good',
  },
  logFile: { flag: 'log-file', type: 'string', describe: 'pino JSON log [default: <out>/run.log]' },
  logLevel: {
    flag: 'log-level',
    type: 'string',
    default: 'info',
    env: 'PAYER_ONBOARD_LOG_LEVEL',
    choices: LOG_LEVELS,
    describe: 'log level',
  },
  progress: {
    flag: 'progress',
    type: 'boolean',
    describe: 'progress bar on stderr [default: on when stderr is a terminal]',
  },
  json: {
    flag: 'json',
    type: 'boolean',
    default: false,
    describe: 'print the summary as JSON on stdout, nothing else on stdout',
  },
  sandbox: {
    flag: 'sandbox',
    type: 'boolean',
    default: false,
    describe: 'start the built-in sandbox and run against it: a rehearsal that needs no key',
  },
} as const satisfies Record<
  string,
  {
    flag: string;
    type: 'string' | 'number' | 'boolean';
    default?: unknown;
    env?: string;
    describe: string;
    choices?: readonly string[];
  }
>;

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

export const runOptionsSchema = z.object({
  inputs: z.array(z.string().min(1)).min(1, 'give at least one input file'),
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  apiKeyFile: z.string().optional(),
  bankDetails: z.string().optional(),
  sheet: z.string().min(1, 'give a sheet name').optional(),
  map: z.string().min(1, 'give a JSON file').optional(),
  dateFormat: z
    .string()
    .transform((text) => text.toUpperCase())
    .pipe(
      z
        .string()
        .regex(
          DATE_FORMAT,
          'must be YYYY, MM and DD in some order with / . or - between, e.g. MM/DD/YYYY or DD.MM.YYYY',
        ),
    )
    .optional(),
  out: z.string().optional(),
  concurrency: count(1).max(256, 'must be at most 256'),
  rate: z.number({ error: 'must be a number' }).min(0, 'must be 0 (no cap) or more'),
  retries: count(0).max(20, 'must be at most 20'),
  timeout: z.number({ error: 'must be a number' }).positive('must be more than 0'),
  steps: stepsList,
  completeAgreement: z.boolean(),
  dryRun: z.boolean(),
  compliancePath: z.enum(COMPLIANCE_PATHS, { error: `must be ${COMPLIANCE_PATHS.join(' or ')}` }),
  maxWait: z.number({ error: 'must be a number' }).positive('must be more than 0'),
  stateDir: z.string().min(1),
  allowHttp: z.boolean(),
  maxConsecutiveFailures: count(1),
  logFile: z.string().optional(),
  logLevel: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  progress: z.boolean().optional(),
  json: z.boolean(),
  sandbox: z.boolean(),
});

export type RunOptions = z.output<typeof runOptionsSchema>;
export type RunOptionsInput = Partial<z.input<typeof runOptionsSchema>> & { inputs: string[] };

export const RUN_DEFAULTS = Object.fromEntries(
  Object.entries(RUN_OPTIONS).flatMap(([name, def]) => ('default' in def ? [[name, def.default]] : [])),
) as Partial<z.input<typeof runOptionsSchema>>;

/** Values from the environment, for the options that have a variable. */
export function optionsFromEnv(env: NodeJS.ProcessEnv): Partial<z.input<typeof runOptionsSchema>> {
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(RUN_OPTIONS)) {
    if (!('env' in def)) continue;
    const raw = env[def.env];
    if (raw === undefined || raw === '') continue;
    out[name] = def.type === 'number' ? Number(raw) : raw;
  }
  return out;
}

/** Merges defaults, environment and explicit values once, checks them, and reports every problem as `--option: message`. */
export function resolveRunOptions(explicit: RunOptionsInput, env: NodeJS.ProcessEnv = {}): RunOptions {
  const defined = Object.fromEntries(Object.entries(explicit).filter(([, v]) => v !== undefined));
  const merged = { ...RUN_DEFAULTS, ...optionsFromEnv(env), ...defined };
  const parsed = runOptionsSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'options');
      const flag = name in RUN_OPTIONS ? `--${RUN_OPTIONS[name as keyof typeof RUN_OPTIONS].flag}` : name;
      return `${flag}: ${issue.message}`;
    });
    throw new ConfigError(problems.join('\n'), 'E_USAGE');
  }
  return parsed.data;
}
