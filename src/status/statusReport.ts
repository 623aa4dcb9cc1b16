import { html, joined, type SafeHtml } from '../core/html.js';
import { CATEGORIES, type Category, linksNeeded, type PayerStatus, type StatusSummary } from './payerStatus.js';
import { BASE_STYLE, FILTER_SCRIPT, htmlPage, link, scrollBox, writePrivate } from '../report/page.js';
import { WHO_STYLE, whoCell } from '../report/payerNames.js';

/** The categories' colours: red for what needs a person, amber for what waits on one, green for done. */
const COLORS: Record<Category, string> = {
  'fix-rows': '#b71c1c',
  'not-registered': '#6a1b9a',
  'kyc-rejected': '#c62828',
  'kyc-pending': '#1565c0',
  'agreement-pending': '#0277bd',
  'bank-failed': '#bf360c',
  'word-to-check': '#ad1457',
  'no-bank': '#8d6e63',
  'bank-pending': '#a05e00',
  payable: '#2e7d32',
  unread: '#757575',
  skipped: '#616161',
};

const STYLE = html`${BASE_STYLE}
${joined(
  CATEGORIES.map(
    (c) =>
      html`.card.${c.key} { border-left-color: ${COLORS[c.key]}; } .pill.${c.key} { background: ${COLORS[c.key]}; }`,
  ),
  '\n',
)}
td.links a { margin-right: 8px; white-space: nowrap; }
${WHO_STYLE}
`;

/** What the table says of a payer whose identity check the service refused: the payer is contacted, not the row fixed. */
const NOTE_REJECTED = 'nothing in their rows is wrong: contact them';

/** The most payers the table lists; status.csv has every one. */
export const STATUS_TABLE_LIMIT = 10_000;

/**
 * report.html of a `status` run, for the finance team: how many payers stand where, what to do about each group,
 * and every payer not yet payable with the links to send them. A pure function of the data, every value escaped.
 */
function buildStatusReport(summary: StatusSummary, notPayable: readonly PayerStatus[]): string {
  const p = summary.payers;
  const inputs = summary.inputs.map((i) => `${i.source} (${i.rows} rows)`).join(', ');
  const present = CATEGORIES.filter((c) => p[c.key] > 0);
  const card = (key: string, label: string, n: number) =>
    html`<div class="card ${key}"><span class="n" data-count="${key}">${n}</span>${label}</div>`;
  const todo = present
    .filter((c) => c.key !== 'payable')
    .map((c) => html`<li data-next="${c.key}"><b>${c.label}</b> (${p[c.key]}): ${c.action}</li>`);
  const body = html`<h1>Where the payers stand</h1>
<p class="meta">Checked ${summary.startedAt} · ${inputs} · exit code <b data-exit-code="${summary.exitCode}">${summary.exitCode}</b></p>
${summary.aborted && html`<p class="abort"><b>Stopped</b> (${summary.aborted.reason}): ${summary.aborted.message}. Payers not read are <i>skipped</i>; run status again.</p>`}
<div class="cards">${card('total', 'payers', p.total)}${present.map((c) => card(c.key, c.label, p[c.key]))}</div>
${todo.length > 0 ? html`<h2>What to do next</h2><ul class="next">${todo}</ul>` : html`<p>Every payer is payable.</p>`}
${table(summary, notPayable)}
<p class="muted">Counted from ${summary.outputs.status}; ${summary.requests.total} reads, nothing written to the service.</p>`;
  // The filter works on the table of payers not yet payable; with every payer payable there is none.
  const script = p.total > p.payable ? FILTER_SCRIPT : html``;
  return htmlPage({ title: `payer-onboard status ${summary.runId}`, style: STYLE, script, body });
}

function table(summary: StatusSummary, notPayable: readonly PayerStatus[]): SafeHtml {
  const total = summary.payers.total - summary.payers.payable;
  if (total === 0) return html`<h2>Payers not yet payable</h2><p class="muted">None.</p>`;
  const label = new Map<string, string>(CATEGORIES.map((c) => [c.key, c.label]));
  const order = new Map<string, number>(CATEGORIES.map((c, i) => [c.key, i]));
  // Grouped as the team acts on them; within a group, in the order of the input.
  const rows = [...notPayable]
    .map((s, i) => ({ s, i }))
    .sort((a, b) => order.get(a.s.category)! - order.get(b.s.category)! || a.i - b.i)
    .map(({ s }) => {
      const payer = s.payer?.found ? s.payer : undefined;
      // Only the links the payer still needs: a KYC link to a payer whose KYC is approved would only confuse them.
      const links = linksNeeded(s);
      const accounts = s.accounts
        ? `${s.accounts.approved} approved, ${s.accounts.pending} pending, ${s.accounts.failed} failed`
        : '';
      const pill = html`<span class="pill ${s.category}">${label.get(s.category) ?? s.category}</span>`;
      const note = s.category === 'kyc-rejected' ? NOTE_REJECTED : s.errors.map((x) => x.message).join('; ');
      return html`<tr data-kind="${s.category}"><td class="who">${whoCell(s.clientUserId, s.who)}</td><td>${pill}</td><td>${payer?.kycStatus}</td><td>${payer?.agreementStatus}</td><td>${accounts}</td><td class="links">${link(links.kycUrl, 'KYC')}${link(links.agreementUrl, 'agreement')}</td><td class="msg">${note}</td></tr>`;
    });
  const options = CATEGORIES.filter((c) => c.key !== 'payable' && summary.payers[c.key] > 0).map(
    (c) => html`<option value="${c.key}">${c.label}</option>`,
  );
  const cut =
    notPayable.length < total
      ? ` The table lists the first ${notPayable.length} of ${total}; status.csv has them all.`
      : '';
  const table = html`<table id="table"><thead><tr><th>payer</th><th>where</th><th>KYC</th><th>agreement</th><th>bank accounts</th><th>links to send</th><th>note</th></tr></thead>
<tbody>${joined(rows, '\n')}</tbody></table>`;
  return html`<h2>Payers not yet payable (${total})</h2>
<div class="filter"><label>Filter <input id="q" type="search" placeholder="name, e-mail, clientUserId, status or message"></label>
<label>Where <select id="o"><option value="">all</option>${options}</select></label>
<span class="muted">showing <span id="shown">${rows.length}</span> of ${rows.length}.${cut}</span></div>
${scrollBox('Payers not yet payable', table)}`;
}

/**
 * Writes the status report at `summary.outputs.report`, mode 0600 like every output that holds personal data: it names
 * payers by name and e-mail address where the payer directory has them.
 */
export function writeStatusReport(summary: StatusSummary, notPayable: readonly PayerStatus[]): void {
  writePrivate(summary.outputs.report, buildStatusReport(summary, notPayable));
}
