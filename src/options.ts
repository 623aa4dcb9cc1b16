import { z } from 'zod';
import { ConfigError } from './errors.js';
import { RUN_OPTIONS } from './runOptionTable.js';

// `run`'s options as one checked object: the defaults, the environment and what was given merged once, in this
// order, and parsed with the checks of RUN_OPTIONS. The CLI, the inbox and a library caller of run() all come
// through resolveRunOptions, so they get the same defaults and the same messages.

type RunTable = typeof RUN_OPTIONS;
// An option with a default always has a value once resolveRunOptions has merged the defaults in.
type RunShape = {
  -readonly [K in keyof RunTable]: RunTable[K] extends { default: unknown }
    ? RunTable[K]['schema']
    : z.ZodOptional<RunTable[K]['schema']>;
};
const runShape = Object.fromEntries(
  Object.entries(RUN_OPTIONS).map(([name, def]) => [name, 'default' in def ? def.schema : def.schema.optional()]),
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
