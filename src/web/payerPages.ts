import { CATEGORIES, MAIL_REFUSED } from '../status/payerStatus.js';
import { html, type SafeHtml } from '../core/html.js';
import type { PayerEvent } from '../journal/RowJournal.js';
import type { PayerLine, PayerMail, PayerPage, PayerView } from './payerBook.js';
import { linkForms } from './payerLinkRoutes.js';

const LABEL = new Map(CATEGORIES.map((c) => [c.key, c]));

/** Payers shown a page: a team of 50,000 payers gets a page a browser shows at once, not one of 25 MB. */
export const PAGE_SIZE = 100;

/** The view's query string, for the links and forms that keep it (`page` when not the first). */
export function viewQuery(view: PayerView, page = view.page): string {
  const params = new URLSearchParams();
  if (view.category) params.set('category', view.category);
  if (view.search) params.set('q', view.search);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The Payers page: what is live (counts and table, swapped in when something changes) and the refresh form. */
export function payersPage(shown: PayerPage, view: PayerView, csrf: string, note?: string): SafeHtml {
  const query = viewQuery(view);
  const csv = viewQuery({ ...view, page: 1 });
  return html`<h1>Payers</h1>
<p>Where each payer stands, from what serve has run and read. It changes by itself as the service's webhooks come in.</p>
<p class="hint" id="mail-state">Invitations by e-mail: ${shown.mailState}</p>
${note ? html`<p class="ok" role="status">${note}</p>` : ''}
<div class="actions">
  <form method="post" action="/payers/refresh" id="refresh">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit">Ask the service again</button>
  </form>
  <a class="button" href="/payers.csv${csv}" download>Download as CSV</a>
</div>
<form method="get" action="/payers" class="search" role="search">
  ${view.category ? html`<input type="hidden" name="category" value="${view.category}">` : ''}
  <label for="q">Find a payer by id</label>
  <input id="q" name="q" type="search" value="${view.search ?? ''}" autocomplete="off">
  <button type="submit">Find</button>
</form>
<div id="payers-live" data-live="/payers/live" data-fragment="/payers/fragment${query}" aria-live="polite">
${payersFragment(shown, view)}
</div>`;
}

/** The counts by category (each a filter), the table of the payers of the view's page, and the way to the others. */
export function payersFragment({ lines: shown, counts, all, found }: PayerPage, view: PayerView): SafeHtml {
  const { category } = view;
  const pages = Math.max(1, Math.ceil(found / PAGE_SIZE));
  const page = Math.min(Math.max(1, view.page), pages);
  const filters = CATEGORIES.filter((c) => counts.has(c.key)).map(
    (c) =>
      html`<li><a href="/payers${viewQuery({ category: c.key, search: view.search, page: 1 })}" ${c.key === category ? html`aria-current="true"` : ''}>${c.label}: <strong>${counts.get(c.key)}</strong></a><span class="hint"> ${c.action}</span></li>`,
  );
  return html`<ul class="counts" id="counts">
  <li><a href="/payers${viewQuery({ search: view.search, page: 1 })}" ${category === undefined ? html`aria-current="true"` : ''}>All: <strong>${all}</strong></a></li>
  ${filters}
</ul>
${pager(found, page, pages, view)}
<table id="payers">
<thead><tr><th scope="col">Payer</th><th scope="col">Where it stands</th><th scope="col">KYC</th><th scope="col">Agreement</th><th scope="col">Bank account</th><th scope="col">Links to send</th><th scope="col">First seen</th><th scope="col">Last asked</th><th scope="col">Mail</th><th scope="col">Note</th></tr></thead>
<tbody>${shown.map(payerRow)}</tbody>
</table>
${shown.length === 0 ? html`<p class="hint">${view.search ? 'No payer with that id here.' : 'No payer here yet.'}</p>` : ''}
${pages > 1 ? pager(found, page, pages, view) : ''}`;
}

/** Which payers the table shows of how many, and the links to the pages before and after. */
function pager(total: number, page: number, pages: number, view: PayerView): SafeHtml | string {
  if (total === 0) return '';
  const first = (page - 1) * PAGE_SIZE + 1;
  const last = Math.min(total, page * PAGE_SIZE);
  const link = (to: number, label: string, rel: string) =>
    to >= 1 && to <= pages ? html`<a href="/payers${viewQuery(view, to)}" rel="${rel}">${label}</a>` : '';
  return html`<nav class="pager" aria-label="Pages of payers"><span>${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}</span>
${link(page - 1, 'Previous', 'prev')} ${link(page + 1, 'Next', 'next')}</nav>`;
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
<td>${mailWords(line.mail)}</td><td>${line.error}</td></tr>`;
}

function copyButton(what: string, url: string, payer: string): SafeHtml {
  return html`<button type="button" class="copy" data-copy="${url}" aria-label="Copy ${what} for ${payer}">Copy ${what}</button>`;
}

/**
 * A payer's mails in a few words: a refusal first, with what to do; then when it was invited and reminded, whether it
 * opened its link and signed on its page, and what is next.
 */
function mailWords(mail: PayerMail | undefined): string {
  if (mail === undefined) return '';
  const words = [
    mail.refused !== undefined
      ? `${MAIL_REFUSED.label}${mail.refused ? ` (${mail.refused})` : ''}: ${MAIL_REFUSED.action}`
      : '',
    mail.invitedAt ? `invited ${day(mail.invitedAt)}` : '',
    mail.remindedAt ? `reminded ${day(mail.remindedAt)}` : '',
    mail.openedAt ? `link opened ${day(mail.openedAt)}` : '',
    mail.signedAt ? `agreement signed on their page ${day(mail.signedAt)}` : '',
    mail.next ? mail.next.replace(/ due (\S+)$/, (_all, at: string) => ` due ${day(at)}`) : '',
  ];
  return words.filter(Boolean).join('; ');
}

/** An ISO time as its day and minute (UTC), as a person reads it in a table. */
function day(iso: string): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '';
}

/**
 * One payer: where it stands now, the links to send, and its history as the journal saw it; with the payers' own page
 * on (`links`), the forms that make the payer a new link to it or revoke theirs.
 */
export function payerPage(line: PayerLine, history: readonly PayerEvent[], links?: { csrf: string }): SafeHtml {
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
  ${line.mail ? html`<dt>Mail</dt><dd id="payer-mail">${mailWords(line.mail)}</dd>` : ''}
  ${line.error ? html`<dt>Note</dt><dd>${line.error}</dd>` : ''}
</dl>
${links === undefined ? '' : linkForms(line.clientUserId, links.csrf)}
<h2>History</h2>
<table id="history"><thead><tr><th scope="col">When</th><th scope="col">What the tool saw</th></tr></thead>
<tbody>${history.map((e) => html`<tr><td class="when">${day(e.at)}</td><td>${e.what}</td></tr>`)}</tbody></table>
<p class="hint">Each line is what a run or a webhook's run found when it asked the service; what happened in between is not known.</p>
<p><a href="/payers">All payers</a></p>`;
}
