import type { OptionDef } from './OptionDef.js';
import { RUN_OPTIONS } from './runOptions.js';

/** The options of `store backup` and `store copy`: their flags, their help and its table in the docs. */
export const STORE_OPTIONS = {
  stateDir: {
    flag: 'state-dir',
    type: 'string',
    value: 'DIR',
    defaultText: RUN_OPTIONS.stateDir.defaultText,
    env: 'PAYER_ONBOARD_STATE_DIR',
    describe: 'the state dir whose SQLite store (`payer-onboard.db`) to back up or copy',
  },
  force: { flag: 'force', type: 'boolean', default: false, describe: '`backup`: replace an existing FILE' },
  toDatabaseUrlFile: {
    flag: 'to-database-url-file',
    type: 'string',
    value: 'FILE',
    describe:
      '`copy`: file holding the URL of the PostgreSQL database to copy into (`postgres://USER:PASSWORD@HOST:PORT/DB`); without it the URL comes from `PAYER_ONBOARD_COPY_TO_URL`, never from a flag value',
  },
} as const satisfies Record<string, OptionDef>;
