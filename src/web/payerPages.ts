import { CATEGORIES, type Category } from '../status/payerStatus.js';
import { html, type SafeHtml } from './html.js';
import type { PayerEvent } from '../journal/RowJournal.js';
import type { PayerLine } from './payerBook.js';

const LABEL = new Map(CATEGORIES.map((c) => [c.key, c]));

/** The Payers page: what is live (counts and table, swapped in when something changes) and the refresh form. */
export function payersPage(lines: PayerLine[], category: Category | undefined, csrf: string, note?: string): SafeHtml {
  const query = category ? `?category=${category}` : '';
  return html`<h1>Payers</h1>
<p>Where each payer stands, from what serve has run and read. It changes by itself as the service's webhooks come in.</p>
${note ? html`<p class="ok" role="status">${note}</p>` : ''}
<div class="actions">
  <form method="post" action="/payers/refresh" id="refresh">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit">Ask the service again</button>
  </form>
  <a class="button" href="/payers.csv${query}" download>Download as CSV</a>
</div>
<div id="payers-live" data-live="/payers/live" data-fragment="/payers/fragment${query}" aria-live="polite">
${payersFragment(lines, category)}
</div>`;
}

/** The counts by category (each a filter) and the table of the payers shown. */
export function payersFragment(lines: PayerLine[], category: Category | undefined): SafeHtml {
  const counts = new Map<Category, number>();
  for (const line of lines) counts.set(line.category, (counts.get(line.category) ?? 0) + 1);
  const shown = category ? lines.filter((l) => l.category === category) : lines;
  const filters = CATEGORIES.filter((c) => counts.has(c.key)).map(
    (c) =>
      html`<li><a href="/payers?category=${c.key}" ${c.key === category ? html`aria-current="true"` : ''}>${c.label}: <strong>${counts.get(c.key)}</strong></a><span class="hint"> ${c.action}</span></li>`,
  );
  return html`<ul class="counts" id="counts">
  <li><a href="/payers" ${category === undefined ? html`aria-current="true"` : ''}>All: <strong>${lines.length}</strong></a></li>
  ${filters}
</ul>
<table id="payers">
<thead><tr><th scope="col">Payer</th><th scope="col">Where it stands</th><th scope="col">KYC</th><th scope="col">Agreement</th><th scope="col">Bank account</th><th scope="col">Links to send</th><th scope="col">First seen</th><th scope="col">Last asked</th><th scope="col">Note</th></tr></thead>
<tbody>${shown.map(payerRow)}</tbody>
</table>
${shown.length === 0 ? html`<p class="hint">No payer here yet.</p>` : ''}`;
}

function payerRow(line: PayerLine): SafeHtml {
  const links = [
    line.category === 'kyc-pending' && line.kycUrl ? copyButton('KYC link', line.kycUrl, line.clientUserId) : '',
    line.category === 'agreement-pending' && line.agreementUrl
      ? copyButton('agreement link', line.agreementUrl, line.clientUserId)
      : '',
  ];
  return html`<tr data-category="${line.category}">
<td><a href="/payers/${encodeURIComponent(line.clientUserId)}">${line.clientUserId}</a></td><td>${LABEL.get(line.category)?.label ?? line.category}</td><td>${line.kycStatus}</td>
<td>${line.agreementStatus}</td><td>${line.bank}</td><td>${links}</td><td class="when">${day(line.since)}</td><td class="when">${day(line.checkedAt)}</td>
<td>${line.error}</td></tr>`;
}

function copyButton(what: string, url: string, payer: string): SafeHtml {
  return html`<button type="button" class="copy" data-copy="${url}" aria-label="Copy ${payer}'s ${what}">Copy ${what}</button>`;
}

/** An ISO time as its day and minute (UTC), as a person reads it in a table. */
function day(iso: string): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '';
}

/** One payer: where it stands now, the links to send, and its history as the journal saw it. */
export function payerPage(line: PayerLine, history: readonly PayerEvent[]): SafeHtml {
  return html`<h1>${line.clientUserId}</h1>
<dl class="facts" id="payer">
  <dt>Where it stands</dt><dd>${LABEL.get(line.category)?.label ?? line.category}</dd>
  <dt>What to do</dt><dd>${LABEL.get(line.category)?.action ?? ''}</dd>
  <dt>userId</dt><dd>${line.userId}</dd>
  <dt>KYC</dt><dd>${line.kycStatus}</dd>
  <dt>Agreement</dt><dd>${line.agreementStatus}</dd>
  <dt>Bank account</dt><dd>${line.bank}</dd>
  ${line.kycUrl ? html`<dt>KYC link</dt><dd>${copyButton('KYC link', line.kycUrl, line.clientUserId)}</dd>` : ''}
  ${line.agreementUrl ? html`<dt>Agreement link</dt><dd>${copyButton('agreement link', line.agreementUrl, line.clientUserId)}</dd>` : ''}
  ${line.error ? html`<dt>Note</dt><dd>${line.error}</dd>` : ''}
</dl>
<h2>History</h2>
<table id="history"><thead><tr><th scope="col">When</th><th scope="col">What the tool saw</th></tr></thead>
<tbody>${history.map((e) => html`<tr><td class="when">${day(e.at)}</td><td>${e.what}</td></tr>`)}</tbody></table>
<p class="hint">Each line is what a run or a webhook's run found when it asked the service; what happened in between is not known.</p>
<p><a href="/payers">All payers</a></p>`;
}
