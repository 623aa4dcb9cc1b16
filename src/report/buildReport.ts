import { createHash } from 'node:crypto';
import { pendingNote, type Summary } from '../output/results.js';
import { OUTCOMES, type Outcome } from '../types.js';
import type { ReportData, ReportTally, RequestSeries } from './collectReportData.js';
import { barChart, escapeHtml, rateChart } from './svgCharts.js';
import { chmodSync, writeFileSync } from 'node:fs';

const e = escapeHtml;

export const OUTCOME_COLORS: Record<Outcome, string> = {
  ok: '#2e7d32',
  waiting: '#1565c0',
  invalid: '#b26a00',
  failed: '#c62828',
  skipped: '#757575',
};

const EXIT_MEANING: Record<number, string> = {
  0: 'every row ok or waiting on the payer',
  1: 'finished; some rows invalid or failed',
  2: 'could not start',
  3: 'aborted',
};

// The table filter: plain DOM, no library. Its hash goes into the page's Content-Security-Policy, which
// also forbids every fetch, so the page provably loads nothing from anywhere.
const FILTER_SCRIPT = `(function () {
  var q = document.getElementById('q'), o = document.getElementById('o'), shown = document.getElementById('shown');
  var rows = document.querySelectorAll('#notok tbody tr');
  function apply() {
    var text = q.value.toLowerCase(), want = o.value, n = 0;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      var hit = (!want || r.getAttribute('data-outcome') === want) && (!text || r.textContent.toLowerCase().indexOf(text) >= 0);
      r.hidden = !hit;
      if (hit) n++;
    }
    shown.textContent = String(n);
  }
  q.addEventListener('input', apply);
  o.addEventListener('change', apply);
  apply();
})();`;

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1d1d1f; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.meta { color: #555; margin: 0; } .meta b { color: #1d1d1f; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 18px 0 4px; }
.card { border: 1px solid #ddd; border-left: 6px solid #999; border-radius: 6px; padding: 8px 16px; min-width: 110px; }
.card .n { display: block; font-size: 28px; font-weight: 600; }
.card.ok { border-left-color: ${OUTCOME_COLORS.ok}; } .card.waiting { border-left-color: ${OUTCOME_COLORS.waiting}; }
.card.invalid { border-left-color: ${OUTCOME_COLORS.invalid}; }
.card.failed { border-left-color: ${OUTCOME_COLORS.failed}; } .card.skipped { border-left-color: ${OUTCOME_COLORS.skipped}; }
.abort { background: #fdecea; border: 1px solid #c62828; border-radius: 6px; padding: 8px 12px; margin-top: 12px; }
.charts { display: flex; gap: 32px; flex-wrap: wrap; }
svg .lbl, svg .val, svg .tick { font: 12px system-ui, "DejaVu Sans", sans-serif; fill: #333; } svg .grid { stroke: #e3e3e3; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
th { background: #f5f5f7; position: sticky; top: 0; } td.msg { word-break: break-word; }
.pill { border-radius: 9px; padding: 0 8px; color: #fff; font-size: 12px; }
.pill.waiting { background: ${OUTCOME_COLORS.waiting}; } .pill.invalid { background: ${OUTCOME_COLORS.invalid}; } .pill.failed { background: ${OUTCOME_COLORS.failed}; } .pill.skipped { background: ${OUTCOME_COLORS.skipped}; }
.filter { margin: 8px 0; display: flex; gap: 8px; align-items: center; } .filter input { width: 320px; padding: 4px 6px; }
.muted { color: #666; } .next { margin: 12px 0 0; padding-left: 20px; } .next li { margin: 2px 0; }
`;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/** The whole report.html as one string: a pure function of the data, every value escaped. */
function buildReport(data: ReportData): string {
  const { run, counts } = data;
  const csp = `default-src 'none'; style-src 'sha256-${sha256(STYLE)}'; script-src 'sha256-${sha256(FILTER_SCRIPT)}'; img-src 'none'; base-uri 'none'; form-action 'none'`;
  const title = `payer-onboard ${run.command} ${run.runId}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${e(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)}</title>
<style>${STYLE}</style></head>
<body>
<h1>payer-onboard ${e(run.command)} report</h1>
${header(data)}
${cards(counts)}
${nextSteps(data)}
${run.aborted ? `<p class="abort"><b>Run aborted</b> (${e(run.aborted.reason)}): ${e(run.aborted.message)}. Rows not attempted are <i>skipped</i>; run the same file again to finish them.</p>` : ''}
<div class="charts">
<section><h2>Rows by outcome</h2>${barChart(
    OUTCOMES.map((o) => ({ label: o, value: counts[o], color: OUTCOME_COLORS[o] })),
    'rows by outcome',
    420,
  )}</section>
<section><h2>Most frequent errors</h2>${
    data.topErrors.length
      ? barChart(
          data.topErrors.map((t) => ({ label: t.message, value: t.count, color: '#c62828' })),
          'most frequent errors',
          600,
        )
      : '<p class="muted">No errors.</p>'
  }</section>
</div>
${requestsSection(data)}
${tableSection(data)}
<p class="muted">Numbers counted from ${e(run.files.results)} in this folder.</p>
<script>${FILTER_SCRIPT}</script>
</body></html>
`;
}

function header({ run }: ReportData): string {
  const inputs = run.inputs.map((i) => `${e(i.source)} (${i.rows} rows)`).join(', ');
  return `<p class="meta">Run <b>${e(run.runId)}</b>${run.sandbox ? ' against the built-in sandbox' : ''} · ${inputs}</p>
<p class="meta">Started ${e(run.startedAt)} · took ${e((run.durationMs / 1000).toFixed(1))} s · exit code <b data-exit-code="${run.exitCode}">${run.exitCode}</b> (${e(EXIT_MEANING[run.exitCode] ?? 'unknown')})</p>`;
}

function cards(counts: ReportData['counts']): string {
  const card = (key: Outcome | 'total') =>
    `<div class="card ${key}"><span class="n" data-count="${key}">${counts[key]}</span>${key === 'total' ? 'rows' : key}</div>`;
  return `<div class="cards">${card('total')}${OUTCOMES.map(card).join('')}</div>`;
}

/**
 * What happens next, one line per file: rows to fix are for a person, pending rows (waiting on the payer, or not
 * attempted) are finished by a later run of the same file, so nothing here asks anyone to fix them.
 */
function nextSteps({ run, counts, waitingOn }: ReportData): string {
  const files = (names: string[]) => names.map((f) => `<b>${e(f)}</b>`).join(', ');
  const items: string[] = [];
  if (run.files.failed.length) {
    items.push(
      `<li data-next="failed">Rows to fix (${counts.invalid + counts.failed}): fix them in ${files(run.files.failed)}, then run that file.</li>`,
    );
  }
  if (run.files.pending.length) {
    const on = waitingOn.length
      ? ` Waiting on: ${waitingOn.map((w) => `${e(w.message)} (${w.count})`).join('; ')}.`
      : '';
    items.push(
      `<li data-next="pending">Pending rows (${counts.waiting + counts.skipped}): ${e(pendingNote(counts))}; they are in ${files(run.files.pending)}.${on}</li>`,
    );
  }
  return items.length ? `<ul class="next">${items.join('')}</ul>` : '';
}

function requestsSection({ run, series }: ReportData): string {
  if (run.command === 'validate')
    return '<h2>Requests per second</h2><p class="muted">validate sends nothing: no requests.</p>';
  const statuses = Object.entries(run.requests.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${e(k)}: ${v}`)
    .join(', ');
  const totals = `<p class="meta"><span data-requests="${run.requests.total}">${run.requests.total}</span> requests (${statuses || 'none'}), ${run.requests.retries} retries</p>`;
  const chart = series && series.seconds.length > 0 ? rateChart(series) : '<p class="muted">No requests were sent.</p>';
  return `<h2>Requests per second</h2>${totals}${chart}`;
}

function tableSection(data: ReportData): string {
  if (data.rowsNotOk === 0) return '<h2>Rows not ok</h2><p class="muted">Every row is ok.</p>';
  const options = OUTCOMES.filter((o) => o !== 'ok' && data.counts[o] > 0)
    .map((o) => `<option value="${o}">${o}</option>`)
    .join('');
  const cut =
    data.rows.length < data.rowsNotOk
      ? ` The table shows the first ${data.rows.length} of ${data.rowsNotOk}; results.csv has them all.`
      : '';
  const rows = data.rows.map(
    (r) =>
      `<tr data-outcome="${e(r.outcome)}"><td>${e(r.source)}</td><td>${e(r.line)}</td><td>${e(r.clientUserId)}</td>` +
      `<td><span class="pill ${e(r.outcome)}">${e(r.outcome)}</span></td><td>${e(r.step)}</td><td class="msg">${e(r.message)}</td></tr>`,
  );
  return `<h2>Rows not ok (${data.rowsNotOk})</h2>
<div class="filter"><label>Filter <input id="q" type="search" placeholder="line, clientUserId, step or message"></label>
<label>Outcome <select id="o"><option value="">all</option>${options}</select></label>
<span class="muted">showing <span id="shown">${data.rows.length}</span> of ${data.rows.length}.${e(cut)}</span></div>
<table id="notok"><thead><tr><th>file</th><th>line</th><th>clientUserId</th><th>outcome</th><th>step</th><th>message</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

/**
 * Writes report.html beside results.csv (at `summary.outputs.report`), mode 0600 like every output:
 * it names rows by clientUserId, exactly what results.csv holds and nothing more.
 */
export async function writeReport(
  summary: Summary,
  tally: ReportTally,
  series: RequestSeries | undefined,
): Promise<string> {
  const data = tally.data(summary, series);
  const path = summary.outputs.report;
  writeFileSync(path, buildReport(data), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
