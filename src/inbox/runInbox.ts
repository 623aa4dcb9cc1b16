import { resolveInboxTimings } from '../options/inboxOptions.js';
import type { RunContext, RunInput } from '../pipeline/run.js';
import { Inbox } from './Inbox.js';
import type { FileOutcome } from './processFile.js';

export interface InboxOptions {
  /** The inbox folder: holds incoming/, processing/, done/, failed/, results/, waiting/. */
  dir: string;
  /** Keep polling until the signal aborts; otherwise one pass (for cron). */
  watch?: boolean;
  /** Seconds a file's size and mtime must stay the same before it is taken (default: INBOX_OPTIONS). */
  settle?: number;
  /** Milliseconds between looks in --watch mode. Default: half of settle, between 200 ms and 5 s. */
  pollMs?: number;
  /** Hours after a payer's last check before its waiting rows are run again (default: INBOX_OPTIONS). */
  recheckAfter?: number;
  /** Every run option but inputs and out (each file gets results/<file>-<run id>/). */
  run?: Omit<RunInput, 'inputs' | 'out'>;
  /** Called as each file finishes (the CLI prints --json lines from here). */
  onFile?: (outcome: FileOutcome) => void;
}

export interface InboxResult {
  /** The worst of the files' exit codes (3 > 2 > 1 > 0); 0 with no files. */
  exitCode: number;
  files: FileOutcome[];
}

/**
 * The drop folder for cron and for people: takes settled files from incoming/ oldest first, one at a time,
 * through run(). One process per inbox (a lock file in DIR). Files left in processing/ by a crash are resumed
 * before anything new. Writes nothing to stderr when there is nothing to do, so cron mails nobody.
 */
export async function runInbox(options: InboxOptions, context: RunContext = {}): Promise<InboxResult> {
  const { settle, recheckAfter } = resolveInboxTimings(options);
  const inbox = Inbox.open(
    {
      dir: options.dir,
      settle,
      recheckAfter,
      ...(options.run ? { run: options.run } : {}),
      ...(options.onFile ? { onFile: options.onFile } : {}),
    },
    context,
  );
  const going = () => inbox.going && !context.signal?.aborted;
  try {
    await inbox.resume();
    const pollMs = options.pollMs ?? Math.min(5000, Math.max(200, (settle * 1000) / 2));
    // Waiting files before new ones, so a file taken in this tick waits its --recheck-after like the rest. Reading
    // the journal for them costs a pass over it: --watch looks at most once a minute.
    let nextWaitingLook = 0;
    while (going()) {
      if (Date.now() >= nextWaitingLook) {
        nextWaitingLook = Date.now() + Math.min(recheckAfter * 3_600_000, 60_000);
        await inbox.recheckDue();
      }
      if (going()) await inbox.takeIncoming();
      if (!options.watch) break;
      await sleep(pollMs, context.signal);
    }
  } finally {
    await inbox.release();
  }
  const files = inbox.files;
  return { exitCode: files.reduce((worst, f) => Math.max(worst, f.exitCode), 0), files };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
