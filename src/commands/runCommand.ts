import type { Argv, PositionalOptions } from 'yargs';
import { ConfigError } from '../core/errors.js';
import type { RunOptionsInput } from '../options/resolve.js';
import { RUN_OPTIONS, type RunCommandName, runOptionFor, runOptionNames } from '../options/runOptions.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CliIo, CommandBody } from './CliCommand.js';

/**
 * Adds the options `command` takes from the table (validate and inbox take some of them), in that command's words.
 * `--api-key` and `--database-url` are taken too, unlisted, only to be refused with the ways the secret is given
 * (see runInputFromArgv).
 */
export function withRunOptions(yargs: Argv, command: RunCommandName): Argv {
  const names = runOptionNames(command);
  const table = Object.fromEntries(names.map((name) => [name, runOptionFor(name, command)]));
  let flags = addOptions(yargs, table);
  for (const flag of Object.keys(SECRET_FLAGS)) flags = flags.option(flag, { type: 'string', hidden: true });
  return flags;
}

/** Flags that would carry a secret in a shell's history and in ps: each refused, saying how to give it instead. */
const SECRET_FLAGS: Record<string, string> = {
  'api-key':
    'the key is never taken as a flag value (it would stay in your shell history and show in ps): set PAYER_API_KEY, or put the key in a file and give --api-key-file FILE',
  'database-url':
    'the database URL holds its password, so it is never taken as a flag value (it would stay in your shell history and show in ps): set PAYER_ONBOARD_DATABASE_URL, or put the URL in a file and give --database-url-file FILE',
};

/**
 * The input files, as `--help` lists them. yargs gives a list argument an empty list as its default and shows it
 * beside `[required]`; there is no default.
 */
export const INPUT_FILES: PositionalOptions = {
  type: 'string',
  array: true,
  default: undefined,
  describe: 'payer files: .csv .txt .tsv .xlsx .jsonl .ndjson',
};

/** Turns parsed flags back into the options object `run()` takes (camelCase names of the table). */
export function runInputFromArgv(argv: Record<string, unknown>): RunOptionsInput {
  for (const [flag, why] of Object.entries(SECRET_FLAGS))
    if (argv[flag] !== undefined) throw new ConfigError(`--${flag}: ${why}`, 'E_USAGE');
  const input: Record<string, unknown> = { inputs: (argv.input as string[] | undefined) ?? [] };
  for (const [name, def] of Object.entries(RUN_OPTIONS)) {
    const value = argv[def.flag];
    if (value !== undefined) input[name] = value;
  }
  return input as RunOptionsInput;
}

export async function runAndReport(
  input: RunOptionsInput & { command?: 'run' | 'validate' },
  io: CliIo,
): Promise<number> {
  // Loaded here, not with the CLI: the whole pipeline, which `--help` should not pay for.
  const { run } = await import('../pipeline/run.js');
  const { osActor } = await import('../web/teamUsers.js');
  // The operator's path: its runs enter the audit trail as the OS user and host.
  const context = { cwd: io.cwd, env: io.env, stderr: io.stderr, signal: io.signal, actor: osActor() };
  const summary = await run(input, context);
  if (input.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  return summary.exitCode;
}

export const runCommand: CommandBody = {
  builder: (yargs) =>
    withRunOptions(yargs, 'run')
      .positional('input', INPUT_FILES)
      .example(
        'PAYER_API_KEY=... $0 run payers.csv --base-url https://api.example.com',
        'onboard the payers in payers.csv',
      )
      .example('$0 run payers.csv --sandbox', 'rehearse against the built-in sandbox, no key needed')
      .example(
        '$0 run payers.csv --limit 5 --base-url ...',
        'a trial run: the first 5 rows; the next run sends the rest',
      )
      .example(
        '$0 run payer-onboard-results/<run id>/failed-payers.csv --base-url ...',
        're-run the fixed failed rows',
      ),
  handler: (argv, io) => runAndReport(runInputFromArgv(argv), io),
};

export const validateCommand: CommandBody = {
  builder: (yargs) => withRunOptions(yargs, 'validate').positional('input', INPUT_FILES),
  handler: (argv, io) => runAndReport({ ...runInputFromArgv(argv), command: 'validate' }, io),
};
