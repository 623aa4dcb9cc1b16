import { existsSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { StateLock } from '../journal/StateLock.js';
import { resolveRunOptions } from '../options/resolve.js';
import type { RunContext, RunInput } from '../pipeline/run.js';
import { type InboxPaths, inboxPaths, listFiles, oldestFirst, SettleTracker } from './folders.js';
import { type FileOutcome, runInboxFile, settleIncoming } from './processFile.js';
import { dueWaiting, settleWaiting } from './waiting.js';

export type InboxRunInput = Omit<RunInput, 'inputs' | 'out'>;

export interface InboxSpec {
  dir: string;
  /** Seconds a file's size and mtime must stay the same before it is taken. */
  settle: number;
  /** Hours after a payer's last check before a waiting/ file with it is run again. */
  recheckAfter: number;
  run?: InboxRunInput;
  onFile?: (outcome: FileOutcome) => void;
  /** The command holding the inbox, as a second one's refusal names it (default `inbox`). */
  holder?: 'inbox' | 'serve';
}

/**
 * One inbox folder held by this process (its lock taken): the steps a tick is made of, each taking files one at a
 * time through run(). `runInbox` loops over them; `serve` interleaves them with the rows its events name. Once a
 * file says the API is down, the key refused or the run interrupted, `going` is false and no step takes another.
 */
export class Inbox {
  readonly files: FileOutcome[] = [];
  going = true;
  /** Who held the service and key when a file last had to wait for it (another process sending with the key). */
  heldBy: string | undefined;
  private readonly tracker: SettleTracker;

  private constructor(
    readonly paths: InboxPaths,
    readonly runInput: InboxRunInput,
    private readonly spec: InboxSpec,
    private readonly context: RunContext,
    private readonly lock: StateLock,
  ) {
    this.tracker = new SettleTracker(spec.settle * 1000);
  }

  static open(spec: InboxSpec, context: RunContext): Inbox {
    const cwd = context.cwd ?? process.cwd();
    const env = context.env ?? {};
    const root = resolve(cwd, spec.dir);
    if (!existsSync(root) || !statSync(root).isDirectory())
      throw new ConfigError(`inbox: ${spec.dir} is not a folder (create it, with incoming/ inside for the files)`);
    // The journal lives with the inbox unless told otherwise, so a resume after a crash finds it whatever cron's cwd.
    const runInput: InboxRunInput = { ...spec.run };
    if (runInput.stateDir === undefined && !env.PAYER_ONBOARD_STATE_DIR)
      runInput.stateDir = join(root, '.payer-onboard');
    // Bad flags are reported now, not after the first file has been moved.
    resolveRunOptions({ ...runInput, inputs: ['(inbox)'] }, env);
    const paths = inboxPaths(root);
    const holder = spec.holder ?? 'inbox';
    const lock = StateLock.acquire(join(root, 'lock'), holder, { what: holder, using: root });
    return new Inbox(paths, runInput, spec, context, lock);
  }

  private get stopped(): boolean {
    return !this.going || Boolean(this.context.signal?.aborted);
  }

  /** Files left in processing/ by a crash, resumed before anything new. */
  async resume(): Promise<void> {
    for (const name of oldestFirst(this.paths.processing)) {
      if (this.stopped) return;
      await this.take(name, 'incoming');
    }
  }

  /** The files of waiting/ with a payer not checked for --recheck-after, run again. */
  async recheckDue(): Promise<void> {
    // A rehearsal sends nothing: its rows would all look done, and their waiting file would go.
    if (this.runInput.dryRun) return;
    const due = await dueWaiting(this.paths, this.runInput, this.spec.recheckAfter * 3_600_000, this.context);
    for (const name of due) {
      if (this.stopped) return;
      await this.take(name, 'waiting');
    }
  }

  /** The settled files of incoming/, oldest first. */
  async takeIncoming(): Promise<void> {
    for (const name of this.tracker.update(listFiles(this.paths.incoming), Date.now())) {
      if (this.stopped) return;
      this.tracker.forget(name);
      if (!claim(this.paths, name)) continue;
      await this.take(name, 'incoming');
    }
  }

  /** One file of waiting/ run again for some of its payers only (the rest stay in it as they were). */
  async runWaiting(name: string, only: string[]): Promise<FileOutcome | undefined> {
    if (this.stopped || this.runInput.dryRun || !existsSync(join(this.paths.waiting, name))) return undefined;
    return this.take(name, 'waiting', only);
  }

  release(): void {
    this.lock.release();
  }

  private async take(name: string, from: 'incoming' | 'waiting', only?: string[]): Promise<FileOutcome> {
    const input = only === undefined ? this.runInput : { ...this.runInput, only };
    const ran = await runInboxFile(
      this.paths,
      from === 'waiting' ? 'waiting' : 'processing',
      name,
      input,
      this.context,
    );
    const outcome =
      'outcome' in ran
        ? ran.outcome
        : from === 'waiting'
          ? settleWaiting(this.paths, name, ran)
          : settleIncoming(this.paths, name, ran);
    this.files.push(outcome);
    this.heldBy = outcome.heldBy;
    this.context.stderr?.write(describe(outcome));
    this.spec.onFile?.(outcome);
    if (outcome.stop) this.going = false;
    return outcome;
  }
}

/** incoming/ -> processing/ by rename; false when the file vanished (taken back by whoever dropped it). */
function claim(paths: InboxPaths, name: string): boolean {
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
