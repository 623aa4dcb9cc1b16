import type { Argv } from 'yargs';
import { RUN_OPTIONS, type RunOptionsInput } from '../options.js';
import { run } from '../run.js';
import type { CliCommand, CliIo } from './CliCommand.js';

/**
 * Adds every option of the table to yargs. No yargs defaults: a flag only wins when it was given, so the
 * environment and the table's defaults are merged once, in resolveRunOptions.
 */
export function withRunOptions(yargs: Argv, only?: ReadonlyArray<keyof typeof RUN_OPTIONS>): Argv {
  let y = yargs;
  for (const [name, def] of Object.entries(RUN_OPTIONS)) {
    if (only && !only.includes(name as keyof typeof RUN_OPTIONS)) continue;
    const extra = [
      'default' in def && def.default !== undefined ? `[default: ${String(def.default)}]` : '',
      'env' in def ? `[env: ${def.env}]` : '',
    ]
      .filter(Boolean)
      .join(' ');
    y = y.option(def.flag, {
      type: def.type,
      describe: extra ? `${def.describe} ${extra}` : def.describe,
      ...('choices' in def ? { choices: [...def.choices] } : {}),
    });
  }
  return y;
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
  const summary = await run(input, { cwd: io.cwd, env: io.env, stderr: io.stderr, signal: io.signal });
  if (input.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  return summary.exitCode;
}

export const runCommand: CliCommand = {
  command: 'run <input...>',
  describe: 'check every row, then register payers, store bank details and complete agreements',
  builder: (yargs) =>
    withRunOptions(yargs)
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

export const validateCommand: CliCommand = {
  command: 'validate <input...>',
  describe: 'read and check every row, write results and failed files; sends nothing, needs no key',
  builder: (yargs) =>
    withRunOptions(yargs, [
      'bankDetails',
      'sheet',
      'map',
      'dateFormat',
      'out',
      'steps',
      'completeAgreement',
      'logFile',
      'logLevel',
      'progress',
      'json',
    ]).positional('input', {
      type: 'string',
      array: true,
      describe: 'payer files: .csv .txt .tsv .xlsx .jsonl .ndjson',
    }),
  handler: (argv, io) => runAndReport({ ...runInputFromArgv(argv), command: 'validate' }, io),
};
