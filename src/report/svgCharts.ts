import { html, type SafeHtml } from '../core/html.js';
import { ATTEMPT_CLASSES, type AttemptClass, type RequestSeries } from './collectReportData.js';

const ATTEMPT_COLORS: Record<AttemptClass, string> = {
  ok: '#2e7d32',
  refused: '#90a4ae',
  throttled: '#ef6c00',
  error: '#c62828',
  network: '#6a1b9a',
};
const ATTEMPT_LABELS: Record<AttemptClass, string> = {
  ok: '2xx',
  refused: 'refused until approved (expected)',
  throttled: '429',
  error: 'other HTTP error',
  network: 'network / timeout',
};

/**
 * Requests per second over the run as stacked columns by how each attempt ended. A long run is grouped into
 * at most `maxColumns` columns (each the average per second of its span), so the SVG stays small.
 */
export function rateChart(series: RequestSeries, width = 720, maxColumns = 240): SafeHtml {
  const n = series.seconds.length;
  const span = Math.max(1, Math.ceil(n / maxColumns));
  const columns: Array<Record<AttemptClass, number>> = [];
  for (let start = 0; start < n; start += span) {
    const slice = series.seconds.slice(start, start + span);
    const col = { ok: 0, refused: 0, throttled: 0, error: 0, network: 0 };
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
  // Requests come whole: the axis counts in a whole step (1, 2, 5, 10, 20...), about four of them to the top.
  const step = niceStep(peak / 4);
  const yMax = step * Math.ceil(peak / step);
  const colW = plotW / Math.max(1, columns.length);
  const y = (v: number) => top + plotH - (v / yMax) * plotH;

  const grid = Array.from({ length: yMax / step + 1 }, (_, i) => {
    const v = i * step;
    return [
      html`<line x1="${left}" x2="${left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/>`,
      html`<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" class="tick" text-anchor="end">${fmt(v)}</text>`,
    ];
  });
  const bars = columns.map((c, i) => {
    let base = 0;
    const x = left + i * colW;
    const parts = ATTEMPT_CLASSES.filter((k) => c[k] > 0).map((k) => {
      const y0 = y(base + c[k]);
      const h = y(base) - y0;
      base += c[k];
      return html`<rect x="${x.toFixed(1)}" y="${y0.toFixed(1)}" width="${Math.max(0.5, colW - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${ATTEMPT_COLORS[k]}"/>`;
    });
    const label = `${clock(i * span)}: ${fmt(base)} requests/s (${ATTEMPT_CLASSES.map((k) => `${ATTEMPT_LABELS[k]} ${fmt(c[k])}`).join(', ')})`;
    return html`<g><title>${label}</title>${parts}</g>`;
  });
  const ticks = Math.min(6, columns.length);
  const xLabels = Array.from({ length: ticks }, (_, t) => {
    const i = ticks === 1 ? 0 : Math.round((t * (columns.length - 1)) / (ticks - 1));
    const x = left + i * colW + colW / 2;
    return html`<text x="${x.toFixed(1)}" y="${top + plotH + 16}" class="tick" text-anchor="middle">${clock(i * span)}</text>`;
  });
  // Each entry as wide as its label (about 6.5 px a character at the tick size), so a long one never overlaps.
  let at = left;
  const legend = ATTEMPT_CLASSES.map((k) => {
    const x = at;
    at += 30 + Math.ceil(ATTEMPT_LABELS[k].length * 6.5);
    return [
      html`<rect x="${x}" y="${height - 14}" width="10" height="10" fill="${ATTEMPT_COLORS[k]}"/>`,
      html`<text x="${x + 14}" y="${height - 5}" class="tick">${ATTEMPT_LABELS[k]}</text>`,
    ];
  });
  const title = `requests per second over ${clock(n)}${span > 1 ? ` (each column ${span} s)` : ''}`;
  const svg = html`<svg role="img" aria-label="${title}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">`;
  return html`${svg}${grid}${bars}${xLabels}${legend}</svg>`;
}

/** The smallest of 1, 2, 5, 10, 20, 50... at or above `v`: a whole number of requests, at least 1. */
function niceStep(v: number): number {
  if (v <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
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
