import { chmodSync, writeFileSync } from 'node:fs';
import { answersText, REFUSED_NOTE, type Summary } from '../output/results.js';
import { OUTCOMES, type Outcome } from '../core/types.js';
import type { ReportData, ReportTally, RequestSeries } from './collectReportData.js';
import { whatToDoNext } from './nextSteps.js';
import { BASE_STYLE, FILTER_SCRIPT, htmlPage } from './page.js';
import { escapeHtml, rateChart } from './svgCharts.js';

const e = escapeHtml;

const OUTCOME_COLORS: Record<Outcome, string> = {
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

const STYLE = `${BASE_STYLE}
${OUTCOMES.map((o) => `.card.${o} { border-left-color: ${OUTCOME_COLORS[o]}; } .pill.${o} { background: ${OUTCOME_COLORS[o]}; }`).join('\n')}
.todo { border: 1px solid #ddd; border-left: 6px solid #1d1d1f; border-radius: 6px; padding: 2px 16px 12px; margin: 18px 0; }
h3 { font-size: 15px; margin: 16px 0 6px; } .todo p { margin: 6px 0; }
code { font: 13px ui-monospace, "DejaVu Sans Mono", Menlo, monospace; background: #f5f5f7; padding: 0 3px; border-radius: 3px; }
pre.cmd { background: #f5f5f7; border: 1px solid #ddd; border-radius: 4px; padding: 8px 10px; white-space: pre-wrap; word-break: break-all; margin: 6px 0; }
pre.cmd code { padding: 0; }
td.links a { margin-right: 8px; white-space: nowrap; }
.operator { border-top: 2px solid #ddd; margin-top: 40px; }
`;

/**
 * The whole report.html as one string: a pure function of the data, every value escaped. For a finance person first:
 * what to do next (rows to fix, the command that runs them again, the links to send), then the counts and the rows;
 * how the run went for the API (requests per second) comes last, for the operator.
 */
function buildReport(data: ReportData): string {
  const { run, counts } = data;
  const body = `<h1>payer-onboard ${e(run.command)} report</h1>
${header(data)}
${run.aborted ? `<p class="abort"><b>Run aborted</b> (${e(run.aborted.reason)}): ${e(run.aborted.message)}. Rows not attempted are <i>skipped</i>; run the same file again to finish them.</p>` : ''}
${whatToDoNext(data)}
<h2>Rows by outcome</h2>
${cards(counts)}
${tableSection(data)}
${operatorSection(data)}
<p class="muted">Numbers counted from ${e(run.files.results)} in this folder.</p>`;
  return htmlPage({
    title: `payer-onboard ${run.command} ${run.runId}`,
    style: STYLE,
    // The filter works on the table of rows not ok; a page without one needs no script.
    script: data.rowsNotOk > 0 ? FILTER_SCRIPT : '',
    body,
  });
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
      `<tr data-kind="${e(r.outcome)}"><td>${e(r.source)}</td><td>${e(r.line)}</td><td>${e(r.clientUserId)}</td>` +
      `<td><span class="pill ${e(r.outcome)}">${e(r.outcome)}</span></td><td>${e(r.step)}</td><td class="msg">${e(r.message)}</td></tr>`,
  );
  return `<h2>Rows not ok (${data.rowsNotOk})</h2>
<div class="filter"><label>Filter <input id="q" type="search" placeholder="line, clientUserId, step or message"></label>
<label>Outcome <select id="o"><option value="">all</option>${options}</select></label>
<span class="muted">showing <span id="shown">${data.rows.length}</span> of ${data.rows.length}.${e(cut)}</span></div>
<table id="table"><thead><tr><th>file</th><th>line</th><th>clientUserId</th><th>outcome</th><th>step</th><th>message</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

/** How the run went for the API: what an operator tunes `--rate` and `--concurrency` by. */
function operatorSection({ run, series }: ReportData): string {
  const heading = '<section class="operator"><h2>For the operator</h2>';
  if (run.command === 'validate')
    return `${heading}<h3>Requests per second</h3><p class="muted">validate sends nothing: no requests.</p></section>`;
  const answers = e(answersText(run.requests));
  const refused = run.requests.refused ? `<p class="muted" data-refused>${e(REFUSED_NOTE)}.</p>` : '';
  const totals = `<p class="meta"><span data-requests="${run.requests.total}">${run.requests.total}</span> requests (${answers || 'none'}), ${run.requests.retries} retries</p>${refused}`;
  const chart = series && series.seconds.length > 0 ? rateChart(series) : '<p class="muted">No requests were sent.</p>';
  return `${heading}<h3>Requests per second</h3>${totals}${chart}</section>`;
}

/**
 * Writes report.html beside results.csv (at `summary.outputs.report`), mode 0600 like every output: it names rows by
 * clientUserId and holds the payers' links, exactly what results.csv holds and nothing more. `rerunOptions`: this
 * run's options that a run of its failed file needs again (rerunOptions()).
 */
export async function writeReport(
  summary: Summary,
  tally: ReportTally,
  series: RequestSeries | undefined,
  rerunOptions: readonly string[] = [],
): Promise<string> {
  const data = tally.data(summary, series, rerunOptions);
  const path = summary.outputs.report;
  writeFileSync(path, buildReport(data), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
