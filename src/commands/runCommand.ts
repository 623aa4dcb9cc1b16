import type { Argv } from 'yargs';
import type { RunOptionsInput } from '../options/resolve.js';
import { RUN_OPTIONS, type RunCommandName, runOptionNames } from '../options/runOptions.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CliIo, CommandBody } from './CliCommand.js';

/** Adds the options `command` takes from the table (validate and inbox take some of them). */
export function withRunOptions(yargs: Argv, command: RunCommandName): Argv {
  return addOptions(yargs, RUN_OPTIONS, runOptionNames(command));
}

/** Turns parsed flags back into the options object `run()` takes (camelCase names of the table). */
export function runInputFromArgv(argv: Record<string, unknown>): RunOptionsInput {
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
  const summary = await run(input, { cwd: io.cwd, env: io.env, stderr: io.stderr, signal: io.signal });
  if (input.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  return summary.exitCode;
}

export const runCommand: CommandBody = {
  builder: (yargs) =>
    withRunOptions(yargs, 'run')
      .positional('input', {
        type: 'string',
        array: true,
        describe: 'payer files: .csv .txt .tsv .xlsx .jsonl .ndjson',
      })
      .example(
        'PAYER_API_KEY=... $0 run payers.csv --base-url https://api.example.com',
        'onboard the payers in payers.csv',
      )
      .example('$0 run payers.csv --sandbox', 'rehearse against the built-in sandbox, no key needed')
      .example(
        '$0 run payer-onboard-results/<run id>/failed-payers.csv --base-url ...',
        're-run the fixed failed rows',
      ),
  handler: (argv, io) => runAndReport(runInputFromArgv(argv), io),
};

export const validateCommand: CommandBody = {
  builder: (yargs) =>
    withRunOptions(yargs, 'validate').positional('input', {
      type: 'string',
      array: true,
      describe: 'payer files: .csv .txt .tsv .xlsx .jsonl .ndjson',
    }),
  handler: (argv, io) => runAndReport({ ...runInputFromArgv(argv), command: 'validate' }, io),
};
