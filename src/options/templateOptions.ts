import type { OptionDef } from './OptionDef.js';

/** The template's options: its flags, their help and its table in the docs. */
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
