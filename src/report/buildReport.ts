import { html, joined, type SafeHtml } from '../core/html.js';
import { answersText, REFUSED_NOTE, type Summary } from '../output/results.js';
import { OUTCOMES, type Outcome } from '../core/types.js';
import type { ReportData, ReportTally, RequestSeries } from './collectReportData.js';
import { whatToDoNext } from './nextSteps.js';
import { BASE_STYLE, FILTER_SCRIPT, htmlPage, scrollBox, writePrivate } from './page.js';
import { WHO_STYLE, type WhoLookup, whoCell, whoOf } from './payerNames.js';
import { rateChart } from './svgCharts.js';

const OUTCOME_COLORS: Record<Outcome, string> = {
  ok: '#2e7d32',
  waiting: '#1565c0',
  invalid: '#a05e00',
  failed: '#c62828',
  skipped: '#757575',
};

const EXIT_MEANING: Record<number, string> = {
  0: 'every row ok or waiting on the payer',
  1: 'finished; some rows invalid or failed',
  2: 'could not start',
  3: 'aborted',
};

const STYLE = html`${BASE_STYLE}
${joined(
  OUTCOMES.map(
    (o) =>
      html`.card.${o} { border-left-color: ${OUTCOME_COLORS[o]}; } .pill.${o} { background: ${OUTCOME_COLORS[o]}; }`,
  ),
  '\n',
)}
.todo { border: 1px solid #ddd; border-left: 6px solid #1d1d1f; border-radius: 6px; padding: 2px 16px 12px; margin: 18px 0; }
h3 { font-size: 15px; margin: 16px 0 6px; } .todo p { margin: 6px 0; }
code { font: 13px ui-monospace, "DejaVu Sans Mono", Menlo, monospace; background: #f5f5f7; padding: 0 3px; border-radius: 3px; }
pre.cmd { background: #f5f5f7; border: 1px solid #ddd; border-radius: 4px; padding: 8px 10px; white-space: pre-wrap; word-break: break-all; margin: 6px 0; }
pre.cmd code { padding: 0; }
td.links a { margin-right: 8px; white-space: nowrap; }
${WHO_STYLE}
.operator { border-top: 2px solid #ddd; margin-top: 40px; }
`;

/**
 * The whole report.html as one string: a pure function of the data, every value escaped. For a finance person first:
 * what to do next (rows to fix, the command that runs them again, the links to send), then the counts and the rows;
 * how the run went for the API (requests per second) comes last, for the operator.
 */
function buildReport(data: ReportData): string {
  const { run, counts } = data;
  const body = html`<h1>payer-onboard ${run.command} report</h1>
${header(data)}
${run.aborted && html`<p class="abort"><b>Run aborted</b> (${run.aborted.reason}): ${run.aborted.message}. Rows not attempted are <i>skipped</i>; run the same file again to finish them.</p>`}
${whatToDoNext(data)}
<h2>Rows by outcome</h2>
${cards(counts)}
${tableSection(data)}
${operatorSection(data)}
<p class="muted">Numbers counted from ${run.files.results} in this folder.</p>`;
  return htmlPage({
    title: `payer-onboard ${run.command} ${run.runId}`,
    style: STYLE,
    // The filter works on the table of rows not ok; a page without one needs no script.
    script: data.rowsNotOk > 0 ? FILTER_SCRIPT : html``,
    body,
  });
}

function header({ run }: ReportData): SafeHtml {
  const inputs = joined(
    run.inputs.map((i) => `${i.source} (${i.rows} rows)`),
    ', ',
  );
  return html`<p class="meta">Run <b>${run.runId}</b>${run.sandbox && ' against the built-in sandbox'} · ${inputs}</p>
<p class="meta">Started ${run.startedAt} · took ${(run.durationMs / 1000).toFixed(1)} s · exit code <b data-exit-code="${run.exitCode}">${run.exitCode}</b> (${EXIT_MEANING[run.exitCode] ?? 'unknown'})</p>`;
}

function cards(counts: ReportData['counts']): SafeHtml {
  const card = (key: Outcome | 'total') =>
    html`<div class="card ${key}"><span class="n" data-count="${key}">${counts[key]}</span>${key === 'total' ? 'rows' : key}</div>`;
  return html`<div class="cards">${card('total')}${OUTCOMES.map(card)}</div>`;
}

function tableSection(data: ReportData): SafeHtml {
  if (data.rowsNotOk === 0) return html`<h2>Rows not ok</h2><p class="muted">Every row is ok.</p>`;
  const options = OUTCOMES.filter((o) => o !== 'ok' && data.counts[o] > 0).map(
    (o) => html`<option value="${o}">${o}</option>`,
  );
  const cut =
    data.rows.length < data.rowsNotOk
      ? ` The table shows the first ${data.rows.length} of ${data.rowsNotOk}; results.csv has them all.`
      : '';
  const rows = data.rows.map((r) => {
    const pill = html`<span class="pill ${r.outcome}">${r.outcome}</span>`;
    return html`<tr data-kind="${r.outcome}"><td>${r.source}</td><td>${r.line}</td><td class="who">${whoCell(r.clientUserId, data.who.get(r.clientUserId))}</td><td>${pill}</td><td>${r.step}</td><td class="msg">${r.message}</td></tr>`;
  });
  const table = html`<table id="table"><thead><tr><th>file</th><th>line</th><th>payer</th><th>outcome</th><th>step</th><th>message</th></tr></thead>
<tbody>${joined(rows, '\n')}</tbody></table>`;
  return html`<h2>Rows not ok (${data.rowsNotOk})</h2>
<div class="filter"><label>Filter <input id="q" type="search" placeholder="line, name, e-mail, clientUserId, step or message"></label>
<label>Outcome <select id="o"><option value="">all</option>${options}</select></label>
<span class="muted">showing <span id="shown">${data.rows.length}</span> of ${data.rows.length}.${cut}</span></div>
${scrollBox('Rows not ok', table)}`;
}

/** How the run went for the API: what an operator tunes `--rate` and `--concurrency` by. */
function operatorSection({ run, series }: ReportData): SafeHtml {
  const heading = html`<section class="operator"><h2>For the operator</h2>`;
  if (run.command === 'validate')
    return html`${heading}<h3>Requests per second</h3><p class="muted">validate sends nothing: no requests.</p></section>`;
  const answers = answersText(run.requests);
  const refused = run.requests.refused ? html`<p class="muted" data-refused>${REFUSED_NOTE}.</p>` : undefined;
  const totals = html`<p class="meta"><span data-requests="${run.requests.total}">${run.requests.total}</span> requests (${answers || 'none'}), ${run.requests.retries} retries</p>${refused}`;
  const chart =
    series && series.seconds.length > 0 ? rateChart(series) : html`<p class="muted">No requests were sent.</p>`;
  return html`${heading}<h3>Requests per second</h3>${totals}${chart}</section>`;
}

/**
 * Writes report.html beside results.csv (at `summary.outputs.report`), mode 0600 like every output that holds personal
 * data: it names the payers of its tables by clientUserId and, where `who` finds them in the payer directory, by name
 * and e-mail address, and holds their links. `rerunOptions`: this run's options that a run of its failed file needs
 * again (rerunOptions()).
 */
export async function writeReport(
  summary: Summary,
  tally: ReportTally,
  series: RequestSeries | undefined,
  rerunOptions: readonly string[] = [],
  who?: WhoLookup,
): Promise<string> {
  const data = tally.data(summary, series, rerunOptions, await whoOf(tally.named(), who));
  const path = summary.outputs.report;
  writePrivate(path, buildReport(data));
  return path;
}
