import { existsSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { StateLock } from '../journal/StateLock.js';
import { resolveInboxTimings } from '../options/inboxOptions.js';
import { resolveRunOptions } from '../options/resolve.js';
import type { RunContext, RunInput } from '../pipeline/run.js';
import { inboxPaths, listFiles, oldestFirst, SettleTracker } from './folders.js';
import { type FileOutcome, runInboxFile, settleIncoming } from './processFile.js';
import { dueWaiting, settleWaiting } from './waiting.js';

export interface InboxOptions {
  /** The inbox folder: holds incoming/, processing/, done/, failed/, results/, waiting/. */
  dir: string;
  /** Keep polling until the signal aborts; otherwise one pass (for cron). */
  watch?: boolean;
  /** Seconds a file's size and mtime must stay the same before it is taken (default: INBOX_OPTIONS). */
  settle?: number;
  /** Milliseconds between looks in --watch mode. Default: half of settle, between 200 ms and 5 s. */
  pollMs?: number;
  /** Hours after a payer's last check before a waiting/ file with it is run again (default: INBOX_OPTIONS). */
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
  const cwd = context.cwd ?? process.cwd();
  const env = context.env ?? {};
  const root = resolve(cwd, options.dir);
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new ConfigError(`inbox: ${options.dir} is not a folder (create it, with incoming/ inside for the files)`);
  const { settle, recheckAfter } = resolveInboxTimings(options);
  // The journal lives with the inbox unless told otherwise, so a resume after a crash finds it whatever cron's cwd.
  const runInput: Omit<RunInput, 'inputs' | 'out'> = { ...options.run };
  if (runInput.stateDir === undefined && !env.PAYER_ONBOARD_STATE_DIR) runInput.stateDir = join(root, '.payer-onboard');
  // Bad flags are reported now, not after the first file has been moved.
  resolveRunOptions({ ...runInput, inputs: ['(inbox)'] }, env);

  const paths = inboxPaths(root);
  const lock = StateLock.acquire(join(root, 'lock'), 'inbox', { what: 'inbox', using: root });
  const files: FileOutcome[] = [];
  const take = async (name: string, from: 'incoming' | 'waiting' = 'incoming'): Promise<boolean> => {
    const ran = await runInboxFile(paths, from === 'waiting' ? 'waiting' : 'processing', name, runInput, context);
    const outcome =
      'outcome' in ran
        ? ran.outcome
        : from === 'waiting'
          ? settleWaiting(paths, name, ran)
          : settleIncoming(paths, name, ran);
    files.push(outcome);
    context.stderr?.write(describe(outcome));
    options.onFile?.(outcome);
    return !outcome.stop;
  };
  try {
    let going = true;
    for (const name of oldestFirst(paths.processing)) {
      if (!going || context.signal?.aborted) break;
      going = await take(name);
    }
    const tracker = new SettleTracker(settle * 1000);
    const pollMs = options.pollMs ?? Math.min(5000, Math.max(200, (settle * 1000) / 2));
    // Waiting files before new ones, so a file taken in this tick waits its --recheck-after like the rest. Reading
    // the journal for them costs a pass over it: --watch looks at most once a minute.
    let nextWaitingLook = 0;
    while (going && !context.signal?.aborted) {
      if (Date.now() >= nextWaitingLook) {
        nextWaitingLook = Date.now() + Math.min(recheckAfter * 3_600_000, 60_000);
        for (const name of await dueWaiting(paths, runInput, recheckAfter * 3_600_000, context)) {
          if (!going || context.signal?.aborted) break;
          going = await take(name, 'waiting');
        }
      }
      for (const name of tracker.update(listFiles(paths.incoming), Date.now())) {
        if (!going || context.signal?.aborted) break;
        tracker.forget(name);
        if (!claim(paths, name)) continue;
        going = await take(name);
      }
      if (!options.watch) break;
      await sleep(pollMs, context.signal);
    }
  } finally {
    lock.release();
  }
  return { exitCode: files.reduce((worst, f) => Math.max(worst, f.exitCode), 0), files };
}

/** incoming/ -> processing/ by rename; false when the file vanished (taken back by whoever dropped it). */
function claim(paths: ReturnType<typeof inboxPaths>, name: string): boolean {
  try {
    if (existsSync(join(paths.processing, name))) return false; // a resume of the same name is pending: next run
    renameSync(join(paths.incoming, name), join(paths.processing, name));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function describe(o: FileOutcome): string {
  const where = o.folder === 'processing' ? 'left in processing/' : `-> ${o.path}`;
  const results = o.results && o.results !== o.path ? `; results in ${o.results}/` : '';
  return `inbox: ${o.file}: exit ${o.exitCode}, ${where}${o.reason ? ` (${o.reason})` : ''}${results}\n`;
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
