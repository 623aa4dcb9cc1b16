import { html, joined, type SafeHtml } from '../core/html.js';
import { pendingNote } from '../output/results.js';
import type { ReportData } from './collectReportData.js';
import { link, scrollBox } from './page.js';
import { whoCell } from './payerNames.js';
import type { FixGroup } from './rowsToFix.js';

/** The most group lines the page lists; the rest are counted in one line. */
const GROUPS_SHOWN = 25;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const fileList = (names: readonly string[]) =>
  joined(
    names.map((f) => html`<b>${f}</b>`),
    ', ',
  );

/**
 * The top of the report, for whoever acts on the run: the rows to fix grouped as they are fixed, with the command that
 * runs them again; the payers to contact (nothing in their rows is wrong); the payers to send links to; then what a
 * later run finishes by itself, and the warnings.
 */
export function whatToDoNext(data: ReportData): SafeHtml {
  const parts = [rowsToFix(data), payersToContact(data), linksToSend(data), pending(data), warnings(data)].filter(
    (p) => p !== undefined,
  );
  const body = parts.length > 0 ? joined(parts, '\n') : html`<p data-next="none">Nothing: every row is ok.</p>`;
  return html`<section class="todo" id="next"><h2>What to do next</h2>\n${body}</section>`;
}

function rowsToFix({ run, fixRows: n, fix, rerun }: ReportData): SafeHtml | undefined {
  if (n === 0) return undefined;
  const shown = fix.slice(0, GROUPS_SHOWN);
  const more =
    fix.length > shown.length &&
    html`<li class="muted">and ${plural(fix.length - shown.length, 'other kind')} of problem: results.csv names each row's.</li>`;
  const files = run.files.failed.length > 0 && html` They are in ${fileList(run.files.failed)}:`;
  const command =
    rerun !== undefined &&
    html`<p>Fix them there, then run ${run.files.failed.length > 1 ? 'them' : 'it'} again:</p>
<pre class="cmd" data-rerun><code>${rerun.command}</code></pre>
${rerunNotes(run, rerun.dateFormat)}`;
  return html`<h3 data-next="failed">Rows to fix: ${n}</h3>
<p>By column and problem (a row with two problems is on two lines).${files}</p>
<ul class="next">${shown.map(groupLine)}${more}</ul>
${command}`;
}

function rerunNotes(run: ReportData['run'], dateFormat: string | undefined): SafeHtml | undefined {
  const notes = [
    ...(dateFormat ? [html`<code>--date-format ${dateFormat}</code> reads the dates above as they are written.`] : []),
    ...(run.command === 'run' && !run.sandbox
      ? ['The API key comes from PAYER_API_KEY or --api-key-file, as for this run: this page never holds it.']
      : []),
  ];
  return notes.length > 0 ? html`<p class="muted">${joined(notes, ' ')}</p>` : undefined;
}

/** `dateOfBirth: 8 rows, day-first dates: use --date-format DD/MM/YYYY`. */
function groupLine(g: FixGroup): SafeHtml {
  const fix = g.option ? html`: use <code>${g.option}</code>` : g.advice ? `: ${g.advice}` : '';
  return html`<li data-group="${g.where}"><b>${g.where}</b>: ${plural(g.rows, 'row')}, ${g.problem}${fix}</li>`;
}

/** Payers whose rows failed on nothing the file holds: the service refused their identity check, or they wait too long. */
function payersToContact({ run, contact, contactTotal, who }: ReportData): SafeHtml | undefined {
  if (contactTotal === 0) return undefined;
  const cut =
    contact.length < contactTotal
      ? ` The table lists the first ${contact.length} of ${contactTotal}; results.csv has them all.`
      : '';
  const rows = contact.map(
    (c) =>
      html`<tr><td class="who">${whoCell(c.clientUserId, who.get(c.clientUserId))}</td><td>${c.source}</td><td>${c.line}</td><td class="msg">${c.why}</td></tr>`,
  );
  const table = html`<table id="contact"><thead><tr><th>payer</th><th>file</th><th>line</th><th>why</th></tr></thead>
<tbody>${joined(rows, '\n')}</tbody></table>`;
  const files =
    run.files.failed.length > 0 &&
    html` Their rows are in ${fileList(run.files.failed)} with that note, for the record.`;
  return html`<h3 data-next="contact">Payers to contact: ${plural(contactTotal, 'payer')}</h3>
<p>Nothing in their rows is wrong, and running them again changes nothing: the service refused their identity check (KYC), or they have waited longer than the run allows. Contact them.${files}${cut}</p>
${scrollBox('Payers to contact', table)}`;
}

function linksToSend({ links, linksTotal, who }: ReportData): SafeHtml | undefined {
  if (linksTotal === 0) return undefined;
  const cut =
    links.length < linksTotal
      ? ` The table lists the first ${links.length} of ${linksTotal}; results.csv has them all (kycUrl, agreementUrl).`
      : '';
  const rows = links.map((l) => {
    const sign = l.agreementUrl && html` <span data-sign>agreement: on their page</span>`;
    return html`<tr><td class="who">${whoCell(l.clientUserId, who.get(l.clientUserId))}</td><td>${l.source}</td><td>${l.line}</td><td>${l.kycStatus}</td><td>${l.agreementStatus}</td><td class="links">${link(l.kycUrl, 'KYC')}${sign}</td></tr>`;
  });
  // The agreement's link alone signs nothing: the service's frame tells the page that holds it, which then records
  // it. So the payer signs on their own page, which serve's invitation or `link new` leads them to.
  const table = html`<table id="links"><thead><tr><th>payer</th><th>file</th><th>line</th><th>KYC</th><th>agreement</th><th>links to send</th></tr></thead>
<tbody>${joined(rows, '\n')}</tbody></table>`;
  return html`<h3 data-next="links">Links to send: ${plural(linksTotal, 'payer')}</h3>
<p>Onboarding waits on these payers: send each their identity check's link below; an agreement to sign they sign on their own page (serve's invitation leads them there, or <code>payer-onboard link new ID</code> makes a link to send).${cut}</p>
${scrollBox('Links to send', table)}`;
}

/** Rows a later run finishes by itself: waiting on the payer, or not attempted. Nothing here asks anyone to fix them. */
function pending({ run, counts, waitingOn }: ReportData): SafeHtml | undefined {
  if (run.files.pending.length === 0) return undefined;
  const on = waitingOn.length > 0 && ` Waiting on: ${waitingOn.map((w) => `${w.message} (${w.count})`).join('; ')}.`;
  return html`<h3>Pending rows: ${counts.waiting + counts.skipped}</h3>
<p data-next="pending">${pendingNote(counts, run.aborted)}; they are in ${fileList(run.files.pending)}.${on}</p>`;
}

function warnings({ run }: ReportData): SafeHtml | undefined {
  if (run.warnings.length === 0) return undefined;
  return html`<h3>Warnings</h3><ul class="next">${run.warnings.map((w) => html`<li data-next="warning">${w}</li>`)}</ul>`;
}
