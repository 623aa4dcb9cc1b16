import { writeFileSync, existsSync, chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { ConfigError } from '../errors.js';
import { TEMPLATE_COLUMNS, TEMPLATE_EXAMPLE } from '../rows/fields.js';
import type { OptionDef } from '../options.js';
import type { CliCommand } from './CliCommand.js';
import { addOptions } from './optionTable.js';
import { templateWorkbook } from './templateXlsx.js';

/** A blank input file with every column in the documented order and one example row. */
export function templateCsv(): string {
  return stringify([[...TEMPLATE_COLUMNS], TEMPLATE_COLUMNS.map((c) => TEMPLATE_EXAMPLE[c] ?? '')]);
}

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

export const templateCommand: CliCommand = {
  command: 'template',
  describe: 'write a blank input file with every column and one example row',
  builder: (yargs) => addOptions(yargs, TEMPLATE_OPTIONS),
  handler: async (argv, io) => {
    const given = argv.out as string | undefined;
    const format =
      (argv.format as 'csv' | 'xlsx' | undefined) ?? (given?.toLowerCase().endsWith('.xlsx') ? 'xlsx' : 'csv');
    const out = given ?? `payers-template.${format}`;
    const text = format === 'xlsx' ? await templateWorkbook() : templateCsv();
    if (out === '-') {
      io.stdout.write(text);
      return 0;
    }
    const path = resolve(io.cwd, out);
    if (existsSync(path) && !argv.force)
      throw new ConfigError(`${out} already exists (use --force to overwrite)`, 'E_USAGE');
    writeFileSync(path, text, { mode: 0o600 });
    chmodSync(path, 0o600);
    io.stderr.write(
      `wrote ${out}: ${TEMPLATE_COLUMNS.length} columns and one example row${format === 'xlsx' ? ' (hover a header for what it takes)' : ''}\n`,
    );
    return 0;
  },
};
