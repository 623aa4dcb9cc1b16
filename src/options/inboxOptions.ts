import { ConfigError } from '../core/errors.js';
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
    describe: "hours after a payer's last check before its waiting rows are run again (from the journal)",
  },
} as const satisfies Record<string, OptionDef>;

/** The inbox's timings with their defaults, checked: seconds to settle, hours between looks at a waiting file. */
export function resolveInboxTimings(given: { settle?: number | undefined; recheckAfter?: number | undefined }): {
  settle: number;
  recheckAfter: number;
} {
  const settle = given.settle ?? INBOX_OPTIONS.settle.default;
  if (!Number.isFinite(settle) || settle < 0) throw new ConfigError('--settle: must be 0 or more seconds', 'E_USAGE');
  const recheckAfter = given.recheckAfter ?? INBOX_OPTIONS.recheckAfter.default;
  if (!Number.isFinite(recheckAfter) || recheckAfter < 0)
    throw new ConfigError('--recheck-after: must be 0 or more hours', 'E_USAGE');
  return { settle, recheckAfter };
}
