import type { Outcome } from '../types.js';

/**
 * A one-line progress bar on stderr: rows done of total, ok / waiting / invalid / failed, rows per second, ETA.
 * Waiting rows are counted apart from failed ones: they are the normal state of a first run, nothing to fix.
 * Redrawn at most every 200 ms so it costs nothing next to the run; off when stderr is not a terminal.
 */
export class Progress {
  private readonly counts: Record<Outcome, number> = { ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 };
  private done = 0;
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly total: number,
    private readonly enabled: boolean,
  ) {
    if (enabled) {
      this.timer = setInterval(() => this.draw(), 200);
      this.timer.unref();
    }
  }

  add(outcome: Outcome): void {
    this.counts[outcome]++;
    this.done++;
  }

  stop(): void {
    if (!this.enabled) return;
    clearInterval(this.timer);
    this.draw();
    this.stream.write('\n');
  }

  private draw(): void {
    const width = 24;
    const fraction = this.total === 0 ? 1 : Math.min(1, this.done / this.total);
    const filled = Math.round(fraction * width);
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const eta = rate > 0 ? (this.total - this.done) / rate : undefined;
    const c = this.counts;
    const line =
      `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${this.total} rows` +
      `  ok ${c.ok}  waiting ${c.waiting}  invalid ${c.invalid}  failed ${c.failed}${c.skipped ? `  skipped ${c.skipped}` : ''}` +
      `  ${rate.toFixed(1)} rows/s  ETA ${eta === undefined ? '--:--' : clock(eta)}`;
    this.stream.write(`\r${line}\x1b[K`);
  }
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}
