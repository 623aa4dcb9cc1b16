import { ATTEMPT_CLASSES, type AttemptClass, type RequestSeries } from './collectReportData.js';

/** Cuts a label for a chart; the full text stays in the SVG <title> tooltip. */
const e = escapeHtml;

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Escapes text for an HTML element or a double-quoted attribute: every value in the report goes through here. */
export function escapeHtml(value: string | number): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export interface Bar {
  label: string;
  value: number;
  color: string;
}

/**
 * Horizontal bars, each label on its own line above its bar so long error messages stay readable.
 * Inline SVG drawn here rather than a chart library: the report must be one file with no scripts to fetch.
 */
export function barChart(bars: Bar[], title: string, width = 560): string {
  const rowHeight = 38;
  const height = Math.max(1, bars.length) * rowHeight + 4;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const room = width - 60;
  const rows = bars.map((bar, i) => {
    const y = i * rowHeight;
    const w = bar.value === 0 ? 0 : Math.max(2, Math.round((bar.value / max) * room));
    return (
      `<g><title>${e(bar.label)}: ${bar.value}</title>` +
      `<text x="0" y="${y + 13}" class="lbl">${e(shorten(bar.label, 88))}</text>` +
      `<rect x="0" y="${y + 18}" width="${w}" height="14" rx="2" fill="${bar.color}"/>` +
      `<text x="${w + 6}" y="${y + 30}" class="val">${bar.value}</text></g>`
    );
  });
  return `<svg role="img" aria-label="${e(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">${rows.join('')}</svg>`;
}

const ATTEMPT_COLORS: Record<AttemptClass, string> = {
  ok: '#2e7d32',
  throttled: '#ef6c00',
  error: '#c62828',
  network: '#6a1b9a',
};
const ATTEMPT_LABELS: Record<AttemptClass, string> = {
  ok: '2xx',
  throttled: '429',
  error: 'other HTTP error',
  network: 'network / timeout',
};

/**
 * Requests per second over the run as stacked columns by how each attempt ended. A long run is grouped into
 * at most `maxColumns` columns (each the average per second of its span), so the SVG stays small.
 */
export function rateChart(series: RequestSeries, width = 720, maxColumns = 240): string {
  const n = series.seconds.length;
  const span = Math.max(1, Math.ceil(n / maxColumns));
  const columns: Array<Record<AttemptClass, number>> = [];
  for (let start = 0; start < n; start += span) {
    const slice = series.seconds.slice(start, start + span);
    const col = { ok: 0, throttled: 0, error: 0, network: 0 };
    for (const s of slice) for (const k of ATTEMPT_CLASSES) col[k] += s[k];
    for (const k of ATTEMPT_CLASSES) col[k] /= span;
    columns.push(col);
  }
  const left = 44;
  const top = 10;
  const plotH = 170;
  const height = top + plotH + 48;
  const plotW = width - left - 10;
  const peak = Math.max(1, ...columns.map((c) => ATTEMPT_CLASSES.reduce((sum, k) => sum + c[k], 0)));
  const yMax = niceCeil(peak);
  const colW = plotW / Math.max(1, columns.length);
  const y = (v: number) => top + plotH - (v / yMax) * plotH;

  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = yMax * f;
    return (
      `<line x1="${left}" x2="${left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/>` +
      `<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" class="tick" text-anchor="end">${fmt(v)}</text>`
    );
  });
  const bars = columns.map((c, i) => {
    let base = 0;
    const x = left + i * colW;
    const parts = ATTEMPT_CLASSES.filter((k) => c[k] > 0).map((k) => {
      const y0 = y(base + c[k]);
      const h = y(base) - y0;
      base += c[k];
      return `<rect x="${x.toFixed(1)}" y="${y0.toFixed(1)}" width="${Math.max(0.5, colW - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${ATTEMPT_COLORS[k]}"/>`;
    });
    const label = `${clock(i * span)}: ${fmt(base)} requests/s (${ATTEMPT_CLASSES.map((k) => `${ATTEMPT_LABELS[k]} ${fmt(c[k])}`).join(', ')})`;
    return `<g><title>${e(label)}</title>${parts.join('')}</g>`;
  });
  const ticks = Math.min(6, columns.length);
  const xLabels = Array.from({ length: ticks }, (_, t) => {
    const i = ticks === 1 ? 0 : Math.round((t * (columns.length - 1)) / (ticks - 1));
    const x = left + i * colW + colW / 2;
    return `<text x="${x.toFixed(1)}" y="${top + plotH + 16}" class="tick" text-anchor="middle">${clock(i * span)}</text>`;
  });
  const legend = ATTEMPT_CLASSES.map(
    (k, i) =>
      `<rect x="${left + i * 150}" y="${height - 14}" width="10" height="10" fill="${ATTEMPT_COLORS[k]}"/>` +
      `<text x="${left + i * 150 + 14}" y="${height - 5}" class="tick">${e(ATTEMPT_LABELS[k])}</text>`,
  );
  const title = `requests per second over ${clock(n)}${span > 1 ? ` (each column ${span} s)` : ''}`;
  return (
    `<svg role="img" aria-label="${e(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `${grid.join('')}${bars.join('')}${xLabels.join('')}${legend.join('')}</svg>`
  );
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

function clock(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m > 0 ? `${m}:${String(s).padStart(2, '0')}` : `${s}s`;
}
