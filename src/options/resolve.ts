import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { LOG_LEVELS, RUN_OPTIONS, type RunOptionName } from './runOptions.js';
import { COMPLIANCE_PATHS } from '../core/schemas.js';
import { STEPS, type Step } from '../core/types.js';
import { DATE_FORMAT } from '../core/types.js';
import { singleByteName } from '../input/encodings.js';

// `run`'s options as one checked object: the defaults, the environment and what was given merged once, in this
// order, and parsed with RUN_CHECKS. The CLI, the inbox and a library caller of run() all come through
// resolveRunOptions, so they get the same defaults and the same messages.

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

/** `--only a-1,a-2`: the ids as given, trimmed; a library caller may pass an array. */
const idList = z.union([z.string(), z.array(z.string())]).transform((value, ctx): string[] => {
  const ids = (Array.isArray(value) ? value : value.split(',')).map((id) => id.trim()).filter(Boolean);
  if (ids.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'give at least one clientUserId, e.g. --only payer-0001,payer-0002' });
    return z.NEVER;
  }
  return ids;
});

/**
 * The check of each option of RUN_OPTIONS, by the same name: a value from a flag, the environment, the default or
 * a library caller. Kept apart from the table so that `--help`, which reads the table, does not load zod.
 */
export const RUN_CHECKS = {
  baseUrl: z.string(),
  apiKeyFile: z.string(),
  bankDetails: z.string(),
  sheet: z.string().min(1, 'give a sheet name'),
  map: z.string().min(1, 'give FROM=TO pairs, JSON or a JSON file'),
  splitName: z.string().trim().min(1, "give the name of the column of people's whole names"),
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
    ),
  encoding: z.string().transform((label, ctx) => {
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
  out: z.string(),
  limit: count(1),
  only: idList,
  concurrency: count(1).max(256, 'must be at most 256'),
  rate: z.number({ error: 'must be a number' }).min(0, 'must be 0 (no cap) or more'),
  retries: count(0).max(20, 'must be at most 20'),
  timeout: z.number({ error: 'must be a number' }).positive('must be more than 0'),
  steps: stepsList,
  agreementSignedElsewhere: z.boolean(),
  dryRun: z.boolean(),
  compliancePath: z.enum(COMPLIANCE_PATHS, { error: `must be ${COMPLIANCE_PATHS.join(' or ')}` }),
  createUnmatchedAccounts: z.boolean(),
  maxWait: z.number({ error: 'must be a number' }).positive('must be more than 0'),
  stateDir: z.string().min(1),
  databaseUrlFile: z.string(),
  allowHttp: z.boolean(),
  maxConsecutiveFailures: count(1),
  maxBlockWait: z.number({ error: 'must be a number' }).positive('must be more than 0'),
  logFile: z.string(),
  logLevel: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  progress: z.boolean(),
  json: z.boolean(),
  exitCode: z.boolean(),
  sandbox: z.boolean(),
} as const satisfies Record<RunOptionName, z.ZodType>;

type RunTable = typeof RUN_OPTIONS;
// An option with a default always has a value once resolveRunOptions has merged the defaults in.
type RunShape = {
  -readonly [K in keyof RunTable]: RunTable[K] extends { default: unknown }
    ? (typeof RUN_CHECKS)[K]
    : z.ZodOptional<(typeof RUN_CHECKS)[K]>;
};
const runShape = Object.fromEntries(
  Object.entries(RUN_OPTIONS).map(([name, def]) => {
    const check: z.ZodType = RUN_CHECKS[name as RunOptionName];
    return [name, 'default' in def ? check : check.optional()];
  }),
) as RunShape;

export const runOptionsSchema = z.object({
  inputs: z.array(z.string().min(1)).min(1, 'give at least one input file'),
  ...runShape,
  /** The key itself, for a library caller; the CLI takes it only from PAYER_API_KEY or --api-key-file. */
  apiKey: z.string().optional(),
});

export type RunOptions = z.output<typeof runOptionsSchema>;
export type RunOptionsInput = Partial<z.input<typeof runOptionsSchema>> & { inputs: string[] };

export const RUN_DEFAULTS = Object.fromEntries(
  Object.entries(RUN_OPTIONS).flatMap(([name, def]) => ('default' in def ? [[name, def.default]] : [])),
) as Partial<z.input<typeof runOptionsSchema>>;

/** Values from the environment, for the options that have a variable. */
function optionsFromEnv(env: NodeJS.ProcessEnv): Partial<z.input<typeof runOptionsSchema>> {
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
