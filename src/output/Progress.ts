/** What the bar counts: its unit, and the counts always shown, in order (any other shows once it is above 0). */
export interface ProgressLabels {
  unit: string;
  shown: readonly string[];
}

const ROW_LABELS: ProgressLabels = { unit: 'rows', shown: ['ok', 'waiting', 'invalid', 'failed'] };

/**
 * A one-line progress bar on stderr: rows done of total, ok / waiting / invalid / failed, rows per second, ETA.
 * Waiting rows are counted apart from failed ones: they are the normal state of a first run, nothing to fix.
 * Redrawn at most every 200 ms so it costs nothing next to the run; off when stderr is not a terminal.
 */
export class Progress {
  private readonly counts = new Map<string, number>();
  private done = 0;
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly total: number | (() => number),
    private enabled: boolean,
    private readonly labels: ProgressLabels = ROW_LABELS,
  ) {
    for (const label of labels.shown) this.counts.set(label, 0);
    if (enabled) {
      this.timer = setInterval(() => this.draw(), 200);
      this.timer.unref();
    }
  }

  add(label: string): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
    this.done++;
  }

  /** Draws the final state and ends the line; later calls do nothing. */
  stop(): void {
    if (!this.enabled) return;
    this.enabled = false;
    clearInterval(this.timer);
    this.draw();
    this.stream.write('\n');
  }

  private draw(): void {
    const width = 24;
    const total = typeof this.total === 'number' ? this.total : Math.max(this.done, this.total());
    const fraction = total === 0 ? 1 : Math.min(1, this.done / total);
    const filled = Math.round(fraction * width);
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const eta = rate > 0 ? (total - this.done) / rate : undefined;
    const shown = [...this.counts]
      .filter(([label, n]) => n > 0 || this.labels.shown.includes(label))
      .map(([label, n]) => `  ${label} ${n}`)
      .join('');
    const unit = this.labels.unit;
    const line =
      `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${total} ${unit}${shown}` +
      `  ${rate.toFixed(1)} ${unit}/s  ETA ${eta === undefined ? '--:--' : clock(eta)}`;
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
