import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './core/packageRoot.js';
import type { CliIo, CommandBody } from './commands/CliCommand.js';
import { ConfigError, PayerOnboardError } from './core/errors.js';
import { retiredFlag } from './options/retiredFlags.js';

/** A command as `--help` lists it; its module is loaded only when it is the one asked for. */
export interface CliCommand {
  command: string;
  describe: string;
  load: () => Promise<CommandBody>;
}

/** Every command, in the order `--help` lists them. */
export const commands: CliCommand[] = [
  {
    command: 'run <input...>',
    describe: 'check every row, then register payers, store bank details and complete agreements',
    load: async () => (await import('./commands/runCommand.js')).runCommand,
  },
  {
    command: 'validate <input...>',
    describe: 'read and check every row, write results and failed files; sends nothing, needs no key',
    load: async () => (await import('./commands/runCommand.js')).validateCommand,
  },
  {
    command: 'status <input...>',
    describe:
      'ask the service where each payer stands now (KYC, agreement, bank account) and write status.csv; reads only',
    load: async () => (await import('./commands/statusCommand.js')).statusCommand,
  },
  {
    command: 'inbox <dir>',
    describe: 'process the files dropped into DIR/incoming/ (for cron; --watch to keep polling)',
    load: async () => (await import('./commands/inboxCommand.js')).inboxCommand,
  },
  {
    command: 'serve',
    describe:
      "take the service's webhooks and run the inbox in one long-running process: bank accounts attached seconds after KYC",
    load: async () => (await import('./commands/serveCommand.js')).serveCommand,
  },
  {
    command: 'invite [id...]',
    describe:
      'have serve e-mail payers an invitation to their own page: payers registered before mails were on, or again; --preview and --dry-run show what would go',
    load: async () => (await import('./commands/inviteCommand.js')).inviteCommand,
  },
  {
    command: 'link',
    describe:
      'make a payer a new personal link to their own page (link new ID...), or revoke their links (link revoke ID...)',
    load: async () => (await import('./commands/linkCommand.js')).linkCommand,
  },
  {
    command: 'users',
    describe:
      "the web page's named users: add one with a role (users add NAME --role ROLE prints a one-time link to set their password), list, role, disable, enable, link",
    load: async () => (await import('./commands/usersCommand.js')).usersCommand,
  },
  {
    command: 'sandbox',
    describe: 'serve a local emulator of the Payer API (for rehearsals and tests) until stopped',
    load: async () => (await import('./commands/sandboxCommand.js')).sandboxCommand,
  },
  {
    command: 'store',
    describe: 'back up the SQLite store while runs go on (store backup FILE), or copy it into PostgreSQL (store copy)',
    load: async () => (await import('./commands/storeCommand.js')).storeCommand,
  },
  {
    command: 'directory',
    describe:
      "fill the payer directory (names, e-mail, company: what invitations need) from payer files' valid rows (directory import FILE...); sends nothing",
    load: async () => (await import('./commands/directoryCommand.js')).directoryCommand,
  },
  {
    command: 'forget <id...>',
    describe: "erase a payer's directory entry (names, e-mail, company) and personal links from the store",
    load: async () => (await import('./commands/forgetCommand.js')).forgetCommand,
  },
  {
    command: 'template',
    describe: 'write a blank input file with every column and one example row',
    load: async () => (await import('./commands/templateCommand.js')).templateCommand,
  },
  {
    command: 'demo',
    describe:
      'onboard the bundled example payers against a built-in sandbox that behaves like the service: a run, then serve taking its webhooks as KYC passes, then status',
    load: async () => (await import('./commands/demoCommand.js')).demoCommand,
  },
];

const USAGE = '$0 <command> [options]\n\nOnboard payers in bulk onto the Payer Compliance and Payment-Details API.';
const NAME = 'payer-onboard';

/** The package's version, from its package.json. */
export const VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
  .version;

const nameOf = (c: CliCommand): string => c.command.split(' ')[0]!;

/** Parses argv, runs one command, returns its exit code. Never exits the process. */
export async function cli(argv: string[], io: CliIo): Promise<number> {
  // Loading yargs alone takes longer than the whole answer to these two may: they are answered without it.
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (argv.length === 1 && argv[0] === '--help') {
    io.stdout.write(`${topLevelHelp(helpWidth())}\n`);
    return 0;
  }
  const retired = retiredFlag(argv);
  if (retired !== undefined) {
    io.stderr.write(`payer-onboard: ${retired}\n`);
    return 2;
  }
  // Only the commands named in argv are loaded (usually one); the others are listed by name, which is all yargs
  // needs of a command it does not run.
  const bodies = new Map<string, CommandBody>();
  for (const c of commands) if (argv.includes(nameOf(c))) bodies.set(c.command, await c.load());

  const { default: yargs } = await import('yargs');
  let parser = yargs(argv)
    .scriptName(NAME)
    .usage(USAGE)
    .strict()
    .demandCommand(1, 'Choose a command.')
    .help()
    .version(VERSION)
    // Every word of the tool is English: yargs' own ("Options", "required") too, whatever the machine's language.
    .locale('en')
    // yargs lays out a command's whole help text before the command runs, whether or not it is ever shown: for run's
    // forty options that is most of yargs' time. Unwrapped, it costs half as much; help asked for is wrapped.
    .wrap(asksForHelp(argv) ? helpWidth() : null)
    .fail((msg, err) => {
      // Thrown, not recorded: yargs would otherwise still run the handler after an unknown option.
      if (err) throw err;
      // "Unknown argument: postgres://USER:PASSWORD@..." (a database URL typed where no flag takes it): not the password.
      const said = msg.replace(/(\/\/[^/:@\s]*:)[^@]*@/g, '$1***@').replace(/([?&]password=)[^&\s,]*/gi, '$1***');
      throw new ConfigError(`${said}\n(see payer-onboard --help, or payer-onboard <command> --help)`, 'E_USAGE');
    })
    .exitProcess(false);
  // The command runs after parsing, not as yargs' handler: a failure of the command is then not yargs' to report.
  for (const c of commands)
    parser = parser.command(c.command, c.describe, bodies.get(c.command)?.builder ?? ((y) => y));
  let output = '';
  try {
    const args = await parser.parseAsync(argv, {}, (_err, _args, out) => {
      output = out;
    });
    if (output) {
      io.stdout.write(`${output}\n`);
      return 0;
    }
    const chosen = commands.find((c) => nameOf(c) === String(args._[0]));
    if (chosen === undefined) return 0;
    const body = bodies.get(chosen.command) ?? (await chosen.load());
    return await body.handler(args as Record<string, unknown>, io);
  } catch (error) {
    if (error instanceof PayerOnboardError) {
      io.stderr.write(`payer-onboard: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}

/** `--help` anywhere, or yargs' own `help` command. */
function asksForHelp(argv: string[]): boolean {
  return argv[0] === 'help' || argv.some((a) => a === '--help' || a.startsWith('--help='));
}

function helpWidth(): number {
  return Math.min(110, process.stdout.columns ?? 100);
}

/** `payer-onboard --help` as yargs lays it out: usage, the commands with their descriptions, the two flags. */
export function topLevelHelp(width: number): string {
  const names = commands.map((c) => `${NAME} ${c.command}`);
  const indent = Math.max(...names.map((n) => n.length)) + 4;
  const lines = [USAGE.replace('$0', NAME), '', 'Commands:'];
  commands.forEach((c, i) => {
    const [first, ...rest] = wrapWords(c.describe, width - indent);
    lines.push(`  ${names[i]!.padEnd(indent - 2)}${first}`, ...rest.map((line) => `${' '.repeat(indent)}${line}`));
  });
  lines.push('', 'Options:');
  for (const [flag, text] of [
    ['--help', 'Show help'],
    ['--version', 'Show version number'],
  ] as const) {
    const left = `  ${flag.padEnd(11)}${text}`;
    lines.push(`${left}${'[boolean]'.padStart(Math.max(width - left.length, 10))}`);
  }
  return lines.join('\n');
}

function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
