// What one option of a command is, the shape every options table shares (run's in runOptionTable.ts, the sandbox's
// with the sandbox), and the tables of the two commands that have options of their own beside run's: inbox and
// template. Kept apart from the commands so the README's renderer reads the tables without importing a command.

/**
 * One option of a command, everything a person meets of it: the yargs flag, its `--help` line and its row in the
 * README's options table (`npm run docs` writes those tables, and a test fails when they differ).
 */
export interface OptionDef {
  /** The flag without its dashes. */
  flag: string;
  type: 'string' | 'number' | 'boolean';
  /** What the README calls the flag's value (`--rate N`); booleans take none. */
  value?: string;
  /** What a caller gets who leaves the option out: a library caller, and a CLI user unless `cliDefault` says otherwise. */
  default?: string | number | boolean;
  /** What the CLI uses instead of `default` when the flag is not given (the sandbox's fixed port). */
  cliDefault?: string | number | boolean;
  /** Said instead, for a default worked out at run time (`the first sheet`); markdown, as `describe`. */
  defaultText?: string;
  /** Environment variable read when the flag is not given (a given flag wins). */
  env?: string;
  /** What the option does: the README's meaning, and with its backticks dropped the `--help` line. */
  describe: string;
  /** Values yargs itself accepts; the others are refused before the command runs. */
  choices?: readonly string[];
}

/** The inbox's own options; it takes `run`'s too (RUN_OPTIONS, `commands`). runInbox() defaults from here. */
export const INBOX_OPTIONS = {
  watch: {
    flag: 'watch',
    type: 'boolean',
    default: false,
    describe: 'keep polling `incoming/` until SIGINT/SIGTERM; without it one pass (for cron)',
  },
  settle: {
    flag: 'settle',
    type: 'number',
    value: 'S',
    default: 10,
    describe: "seconds a file's size and mtime must stay the same before it is taken",
  },
  recheckAfter: {
    flag: 'recheck-after',
    type: 'number',
    value: 'H',
    default: 6,
    describe:
      "hours after a payer's last check before a file in `waiting/` is run again (counted per row from the journal)",
  },
} as const satisfies Record<string, OptionDef>;

/** The template's options: its flags, their help and the README's table. */
export const TEMPLATE_OPTIONS = {
  format: {
    flag: 'format',
    type: 'string',
    value: 'csv|xlsx',
    choices: ['csv', 'xlsx'],
    defaultText: 'from `--out`, else `csv`',
    describe: '`csv`, or `xlsx` with text columns, drop-down lists and a note on each header',
  },
  out: {
    flag: 'out',
    type: 'string',
    value: 'FILE',
    defaultText: '`payers-template.csv` or `.xlsx`',
    describe: 'file to write; `-` for stdout',
  },
  force: { flag: 'force', type: 'boolean', default: false, describe: 'overwrite an existing file' },
} as const satisfies Record<string, OptionDef>;
