import type { JournalTables } from '../store/Store.js';

// The service tries a webhook 4 times over about 21 s (after 1, 5 and 15 s, 5 s each), then drops it. A serve
// that was not there for longer (stopped for a deploy, paused, its event loop held) lost every event of that time,
// and those payers would wait for the recheck, days later. So serve notes that it is alive, in the store, every few
// seconds; a gap longer than the service's retries (at a start, or between two of its own notes) is caught up: every
// payer waiting whose last check is older than the gap's start is read once, a slice at a time between the other work.

/** The service's retries of a delivery: 1 + 5 + 15 s of waits, and the last attempt's 5 s timeout (rounded up). */
export const RETRY_WINDOW_MS = 21_000;
/** How often serve notes it is alive, at most: a fourth of the window, so a gap is known to within it. */
const ALIVE_EVERY_MS = 5_000;
const ALIVE_SETTING = 'serve-alive-at';
/** The start of a gap whose catch-up has not ended: a restart goes on with it. */
const SINCE_SETTING = 'serve-catch-up-since';

export interface CatchUpProgress {
  /** The start of the gap being caught up (ISO). */
  since: string;
  /** Rows waiting on their payers that were due when it began, and those gone through. */
  rows: number;
  done: number;
  startedAt: string;
  finishedAt?: string;
}

/** Where the catch-up stands in the waiting rows: after this one (by file, then row). */
export interface Cursor {
  fileId: string;
  seq: number;
}

export class CatchUp {
  /** The gap being caught up, while it is; the last one, done, after. */
  progress: CatchUpProgress | undefined;
  after: Cursor = { fileId: '', seq: 0 };
  private aliveAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Notes are written from when serve listens until it stops listening. */
  private noting = false;

  constructor(
    private readonly settings: Pick<JournalTables, 'setting' | 'write'>,
    private readonly say: (line: string) => void,
    private readonly windowMs: number = RETRY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether there is a gap still to catch up. */
  get pending(): boolean {
    return this.progress !== undefined && this.progress.finishedAt === undefined;
  }

  /**
   * Reads when serve (this one, or another over the same store) was last alive, and a catch-up a restart cut short:
   * a gap since the last note is caught up; else the one cut short goes on.
   */
  async start(): Promise<void> {
    const noted = Date.parse((await this.settings.setting(ALIVE_SETTING)) ?? '');
    const unfinished = await this.settings.setting(SINCE_SETTING);
    const now = this.now();
    if (!Number.isNaN(noted)) this.gap(noted, now);
    if (this.progress === undefined && unfinished !== undefined) {
      this.progress = { since: unfinished, rows: 0, done: 0, startedAt: new Date(now).toISOString() };
      this.say(`serve: the catch-up of the gap since ${unfinished} was cut short by a restart: it goes on`);
    }
  }

  /** serve takes webhooks from now on: noted now, and every few seconds while it does. */
  async listening(): Promise<void> {
    this.noting = true;
    this.aliveAt = this.now();
    await this.note();
    const every = Math.min(ALIVE_EVERY_MS, this.windowMs / 4);
    this.timer = setInterval(() => {
      const now = this.now();
      // The timer itself was late: the process was paused, or its event loop held, for that long.
      if (this.aliveAt !== undefined) this.gap(this.aliveAt, now);
      this.aliveAt = now;
      void this.note();
    }, every);
    this.timer.unref();
  }

  /** serve takes no more webhooks: the last moment noted, so a restart soon after finds no gap. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (!this.noting) return;
    this.noting = false;
    this.aliveAt = this.now();
    await this.write(ALIVE_SETTING, new Date(this.aliveAt).toISOString());
  }

  /**
   * No word from the service between `from` and `to`: caught up when longer than its retries. A gap while another is
   * caught up starts it again from this one's start: every payer last checked before it (those of the first gap too,
   * and those read since, whose events this one lost) is read.
   */
  gap(from: number, to: number): void {
    if (to - from <= this.windowMs) return;
    const since = new Date(from).toISOString();
    this.progress = { since, rows: 0, done: 0, startedAt: new Date(to).toISOString() };
    this.after = { fileId: '', seq: 0 };
    void this.write(SINCE_SETTING, since);
    this.say(
      `serve: no webhooks could be taken for ${Math.round((to - from) / 1000)} s (since ${since}), longer than the ` +
        "service's retries: every payer waiting whose last check is older is read once",
    );
  }

  /** A slice gone through: the rows of it, and where the next one starts (none: the catch-up is done). */
  advance(rows: number, next: Cursor | undefined): void {
    if (this.progress === undefined) return;
    this.progress.done += rows;
    if (next !== undefined) {
      this.after = next;
      return;
    }
    this.progress.finishedAt = new Date(this.now()).toISOString();
    void this.write(SINCE_SETTING, undefined);
    this.say(`serve: caught up the gap since ${this.progress.since}: ${this.progress.done} waiting rows read again`);
  }

  /** How many rows it had to go through, counted once it began. */
  counted(rows: number): void {
    if (this.progress !== undefined) this.progress.rows = rows;
  }

  private async note(): Promise<void> {
    if (this.noting) await this.write(ALIVE_SETTING, new Date(this.aliveAt!).toISOString());
  }

  private async write(setting: string, value: string | undefined): Promise<void> {
    try {
      await this.settings.write([{ setting, value }]);
    } catch {
      // A store that cannot be written says so where it matters (the runs); a missed note only makes a gap look longer.
    }
  }
}
