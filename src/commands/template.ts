import { writeFileSync, existsSync, chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { ConfigError } from '../errors.js';
import { TEMPLATE_COLUMNS, TEMPLATE_EXAMPLE } from '../rows/fields.js';
import type { CliCommand } from './CliCommand.js';
import { templateWorkbook } from './templateXlsx.js';

/** A blank input file with every column in the documented order and one example row. */
export function templateCsv(): string {
  return stringify([[...TEMPLATE_COLUMNS], TEMPLATE_COLUMNS.map((c) => TEMPLATE_EXAMPLE[c] ?? '')]);
}

export const templateCommand: CliCommand = {
  command: 'template',
  describe: 'write a blank input file with every column and one example row',
  builder: (yargs) =>
    yargs
      .option('format', {
        type: 'string',
        choices: ['csv', 'xlsx'],
        describe:
          'csv, or xlsx with text columns, drop-down lists and a note on each header [default: from --out, else csv]',
      })
      .option('out', {
        type: 'string',
        describe: 'file to write [default: payers-template.csv or .xlsx; - for stdout]',
      })
      .option('force', { type: 'boolean', describe: 'overwrite an existing file' }),
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
