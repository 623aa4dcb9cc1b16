import yargs from 'yargs';
import type { CliCommand, CliIo } from './commands/CliCommand.js';
import { ConfigError, PayerOnboardError } from './errors.js';
import { demoCommand } from './commands/demo.js';
import { runCommand, validateCommand } from './commands/run.js';
import { sandboxCommand } from './commands/sandbox.js';
import { templateCommand } from './commands/template.js';
import { inboxCommand } from './commands/inbox.js';
import { statusCommand } from './commands/status.js';

/** Every command, in the order `--help` lists them. */
export const commands: CliCommand[] = [
  runCommand,
  validateCommand,
  statusCommand,
  inboxCommand,
  sandboxCommand,
  templateCommand,
  demoCommand,
];

/** Parses argv, runs one command, returns its exit code. Never exits the process. */
export async function cli(argv: string[], io: CliIo): Promise<number> {
  let exitCode: number | undefined;
  let parser = yargs(argv)
    .scriptName('payer-onboard')
    .usage('$0 <command> [options]\n\nOnboard payers in bulk onto the Payer Compliance and Payment-Details API.')
    .strict()
    .demandCommand(1, 'Choose a command.')
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((msg, err) => {
      // Thrown, not recorded: yargs would otherwise still run the handler after an unknown option.
      if (err) throw err;
      throw new ConfigError(`${msg}\n(see payer-onboard --help, or payer-onboard <command> --help)`, 'E_USAGE');
    })
    .exitProcess(false);
  for (const c of commands) {
    parser = parser.command(c.command, c.describe, c.builder, async (args) => {
      exitCode = await c.handler(args as Record<string, unknown>, io);
    });
  }
  let output = '';
  try {
    await parser.parseAsync(argv, {}, (_err, _args, out) => {
      output = out;
    });
  } catch (error) {
    if (error instanceof PayerOnboardError) {
      io.stderr.write(`payer-onboard: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
  if (output) io.stdout.write(`${output}\n`);
  return exitCode ?? 0;
}
