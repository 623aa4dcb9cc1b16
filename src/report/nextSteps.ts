import { pendingNote } from '../output/results.js';
import type { ReportData } from './collectReportData.js';
import { link } from './page.js';
import type { FixGroup } from './rowsToFix.js';
import { escapeHtml } from './svgCharts.js';

const e = escapeHtml;

/** The most group lines the page lists; the rest are counted in one line. */
const GROUPS_SHOWN = 25;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const fileList = (names: readonly string[]) => names.map((f) => `<b>${e(f)}</b>`).join(', ');

/**
 * The top of the report, for whoever acts on the run: the rows to fix grouped as they are fixed, with the command that
 * runs them again; the payers to send links to; then what a later run finishes by itself, and the warnings.
 */
export function whatToDoNext(data: ReportData): string {
  const parts = [rowsToFix(data), linksToSend(data), pending(data), warnings(data)].filter((p) => p !== '');
  const body = parts.length > 0 ? parts.join('\n') : '<p data-next="none">Nothing: every row is ok.</p>';
  return `<section class="todo" id="next"><h2>What to do next</h2>\n${body}</section>`;
}

function rowsToFix({ run, counts, fix, rerun }: ReportData): string {
  const n = counts.invalid + counts.failed;
  if (n === 0) return '';
  const shown = fix.slice(0, GROUPS_SHOWN);
  const more =
    fix.length > shown.length
      ? `<li class="muted">and ${plural(fix.length - shown.length, 'other kind')} of problem: results.csv names each row's.</li>`
      : '';
  const files = run.files.failed.length > 0 ? ` They are in ${fileList(run.files.failed)}:` : '';
  const command =
    rerun === undefined
      ? ''
      : `<p>Fix them there, then run ${run.files.failed.length > 1 ? 'them' : 'it'} again:</p>
<pre class="cmd" data-rerun><code>${e(rerun.command)}</code></pre>
${rerunNotes(run, rerun.dateFormat)}`;
  return `<h3 data-next="failed">Rows to fix: ${n}</h3>
<p>By column and problem (a row with two problems is on two lines).${files}</p>
<ul class="next">${shown.map(groupLine).join('')}${more}</ul>
${command}`;
}

function rerunNotes(run: ReportData['run'], dateFormat: string | undefined): string {
  const notes = [
    ...(dateFormat ? [`<code>--date-format ${e(dateFormat)}</code> reads the dates above as they are written.`] : []),
    ...(run.command === 'run' && !run.sandbox
      ? ['The API key comes from PAYER_API_KEY or --api-key-file, as for this run: this page never holds it.']
      : []),
  ];
  return notes.length > 0 ? `<p class="muted">${notes.join(' ')}</p>` : '';
}

/** `dateOfBirth: 8 rows, day-first dates: use --date-format DD/MM/YYYY`. */
function groupLine(g: FixGroup): string {
  const fix = g.option ? `: use <code>${e(g.option)}</code>` : g.advice ? `: ${e(g.advice)}` : '';
  return `<li data-group="${e(g.where)}"><b>${e(g.where)}</b>: ${plural(g.rows, 'row')}, ${e(g.problem)}${fix}</li>`;
}

function linksToSend({ links, linksTotal }: ReportData): string {
  if (linksTotal === 0) return '';
  const cut =
    links.length < linksTotal
      ? ` The table lists the first ${links.length} of ${linksTotal}; results.csv has them all (kycUrl, agreementUrl).`
      : '';
  const rows = links.map(
    (l) =>
      `<tr><td>${e(l.clientUserId)}</td><td>${e(l.source)}</td><td>${e(l.line)}</td><td>${e(l.kycStatus)}</td>` +
      `<td>${e(l.agreementStatus)}</td><td class="links">${link(l.kycUrl, 'KYC')}${l.agreementUrl ? ' <span data-sign>agreement: on their page</span>' : ''}</td></tr>`,
  );
  // The agreement's link alone signs nothing: the service's frame tells the page that holds it, which then records
  // it. So the payer signs on their own page, which serve's invitation or `link new` leads them to.
  return `<h3 data-next="links">Links to send: ${plural(linksTotal, 'payer')}</h3>
<p>Onboarding waits on these payers: send each their identity check's link below; an agreement to sign they sign on their own page (serve's invitation leads them there, or <code>payer-onboard link new ID</code> makes a link to send).${e(cut)}</p>
<table id="links"><thead><tr><th>clientUserId</th><th>file</th><th>line</th><th>KYC</th><th>agreement</th><th>links to send</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

/** Rows a later run finishes by itself: waiting on the payer, or not attempted. Nothing here asks anyone to fix them. */
function pending({ run, counts, waitingOn }: ReportData): string {
  if (run.files.pending.length === 0) return '';
  const on = waitingOn.length ? ` Waiting on: ${waitingOn.map((w) => `${e(w.message)} (${w.count})`).join('; ')}.` : '';
  return `<h3>Pending rows: ${counts.waiting + counts.skipped}</h3>
<p data-next="pending">${e(pendingNote(counts, run.aborted))}; they are in ${fileList(run.files.pending)}.${on}</p>`;
}

function warnings({ run }: ReportData): string {
  if (run.warnings.length === 0) return '';
  return `<h3>Warnings</h3><ul class="next">${run.warnings.map((w) => `<li data-next="warning">${e(w)}</li>`).join('')}</ul>`;
}
