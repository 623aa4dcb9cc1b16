import type { OptionDef } from './OptionDef.js';

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
