// What one option of a command is, the shape every options table of this folder shares. The tables are kept apart
// from the commands so the docs' renderer reads them without importing a command.

/**
 * One option of a command, everything a person meets of it: the yargs flag, its `--help` line and its row in the
 * options table in the docs (`npm run docs` writes those tables, and a test fails when they differ).
 */
export interface OptionDef {
  /** The flag without its dashes. */
  flag: string;
  type: 'string' | 'number' | 'boolean';
  /** What the docs call the flag's value (`--rate N`); booleans take none. */
  value?: string;
  /** What a caller gets who leaves the option out: a library caller, and a CLI user unless `cliDefault` says otherwise. */
  default?: string | number | boolean;
  /** What the CLI uses instead of `default` when the flag is not given (the sandbox's fixed port). */
  cliDefault?: string | number | boolean;
  /** Said instead, for a default worked out at run time (`the first sheet`); markdown, as `describe`. */
  defaultText?: string;
  /** Environment variable read when the flag is not given (a given flag wins). */
  env?: string;
  /** What the option does: the docs' meaning, and with its backticks dropped the `--help` line. */
  describe: string;
  /** Values yargs itself accepts; the others are refused before the command runs. */
  choices?: readonly string[];
}
