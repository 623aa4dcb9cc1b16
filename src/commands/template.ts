import { writeFileSync, existsSync, chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { ConfigError } from '../errors.js';
import { TEMPLATE_COLUMNS, TEMPLATE_EXAMPLE } from '../rows/fields.js';
import type { CliCommand } from './CliCommand.js';

/** A blank input file with every column in the documented order and one example row. */
export function templateCsv(): string {
  return stringify([[...TEMPLATE_COLUMNS], TEMPLATE_COLUMNS.map((c) => TEMPLATE_EXAMPLE[c] ?? '')]);
}

export const templateCommand: CliCommand = {
  command: 'template',
  describe: 'write a blank input file with every column and one example row',
  builder: (yargs) =>
    yargs
      .option('out', { type: 'string', describe: 'file to write [default: payers-template.csv; - for stdout]' })
      .option('force', { type: 'boolean', describe: 'overwrite an existing file' }),
  handler: async (argv, io) => {
    const out = (argv.out as string | undefined) ?? 'payers-template.csv';
    const text = templateCsv();
    if (out === '-') {
      io.stdout.write(text);
      return 0;
    }
    const path = resolve(io.cwd, out);
    if (existsSync(path) && !argv.force) throw new ConfigError(`${out} already exists (use --force to overwrite)`, 'E_USAGE');
    writeFileSync(path, text, { mode: 0o600 });
    chmodSync(path, 0o600);
    io.stderr.write(`wrote ${out}: ${TEMPLATE_COLUMNS.length} columns and one example row\n`);
    return 0;
  },
};
