import { CATEGORIES, MAIL_REFUSED } from '../status/payerStatus.js';
import { html, joined, type SafeHtml } from '../core/html.js';
import type { PayerEvent } from '../journal/RowJournal.js';
import { agreementCompleted } from '../plan/verdict.js';
import type { PayerLine, PayerMail, PayerPage, PayerView } from './payerBook.js';
import { linkForms } from './payerLinkRoutes.js';
import type { PayerWho } from '../report/payerNames.js';

const LABEL = new Map(CATEGORIES.map((c) => [c.key, c]));

/** Payers shown a page: a team of 50,000 payers gets a page a browser shows at once, not one of 25 MB. */
export const PAGE_SIZE = 100;

/**
 * The view's query string, for the links that keep it (`page` when not the first). Never a search: what a person
 * searches for may be a name or an e-mail address, which a URL would carry into a proxy's log and the browser's
 * history. A view with a search is kept by forms that post it (viewLink).
 */
export function viewQuery(view: Omit<PayerView, 'search'>, page = view.page): string {
  const params = new URLSearchParams();
  if (view.category) params.set('category', view.category);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The fields of a form that posts a view: the session's token, the search, the category, the page. */
function viewFields(view: PayerView, csrf: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="q" value="${view.search ?? ''}">${view.category ? html`<input type="hidden" name="category" value="${view.category}">` : ''}${view.page > 1 ? html`<input type="hidden" name="page" value="${view.page}">` : ''}`;
}

/** A way to another view: a link, or with a search a button of a form that posts it (the search stays out of the URL). */
function viewLink(
  view: PayerView,
  csrf: string,
  label: SafeHtml | string,
  attributes: SafeHtml | string = '',
): SafeHtml {
  if (!view.search) return html`<a href="/payers${viewQuery(view)}" ${attributes}>${label}</a>`;
  return html`<form method="post" action="/payers" class="inline">${viewFields(view, csrf)}<button type="submit" class="link" ${attributes}>${label}</button></form>`;
}

/** The Payers page: what is live (counts and table, swapped in when something changes) and the refresh form. */
export function payersPage(shown: PayerPage, view: PayerView, csrf: string, note?: string): SafeHtml {
  // The live part is fetched again as the view was asked for: by a form that posts it when there is a search.
  const live = view.search
    ? html`data-fragment-form="payers-view"`
    : html`data-fragment="/payers/fragment${viewQuery(view)}"`;
  return html`<h1>Payers</h1>
<p>Where each payer stands, from what serve has run and read. It changes by itself as the service's webhooks come in.</p>
<p class="hint" id="mail-state">Invitations by e-mail: ${shown.mailState}</p>
${note ? html`<p class="ok" role="status">${note}</p>` : ''}
<div class="actions">
  <form method="post" action="/payers/refresh" id="refresh">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit">Ask the service again</button>
  </form>
  <form method="post" action="/payers.csv" id="download">
    ${viewFields({ ...view, page: 1 }, csrf)}
    <button type="submit" class="secondary">Download as CSV</button>
  </form>
</div>
<form method="post" action="/payers" class="search" role="search">
  <input type="hidden" name="_csrf" value="${csrf}">
  ${view.category ? html`<input type="hidden" name="category" value="${view.category}">` : ''}
  <label for="q">Find a payer by name, e-mail, company or id</label>
  <input id="q" name="q" type="search" value="${view.search ?? ''}" autocomplete="off">
  <button type="submit">Find</button>
</form>
${view.search ? html`<form method="post" action="/payers/fragment" id="payers-view" hidden>${viewFields(view, csrf)}</form>` : ''}
<div id="payers-live" data-live="/payers/live" ${live} aria-live="polite">
${payersFragment(shown, view, csrf)}
</div>`;
}

/** The counts by category (each a filter), the table of the payers of the view's page, and the way to the others. */
export function payersFragment(
  { lines: shown, counts, all, found }: PayerPage,
  view: PayerView,
  csrf: string,
): SafeHtml {
  const { category } = view;
  const pages = Math.max(1, Math.ceil(found / PAGE_SIZE));
  const page = Math.min(Math.max(1, view.page), pages);
  const current = (on: boolean) => (on ? html`aria-current="true"` : '');
  const filters = CATEGORIES.filter((c) => counts.has(c.key)).map(
    (c) =>
      html`<li>${viewLink({ category: c.key, search: view.search, page: 1 }, csrf, html`${c.label}: <strong>${counts.get(c.key)}</strong>`, current(c.key === category))}<span class="hint"> ${c.action}</span></li>`,
  );
  const none = view.search ? 'No payer with that name, e-mail, company or id here.' : 'No payer here yet.';
  return html`<ul class="counts" id="counts">
  <li>${viewLink({ search: view.search, page: 1 }, csrf, html`All: <strong>${all}</strong>`, current(category === undefined))}</li>
  ${filters}
</ul>
${pager(found, page, pages, view, csrf)}
<table id="payers">
<thead><tr><th scope="col">Payer</th><th scope="col">Where they stand</th><th scope="col">Next</th><th scope="col">Last asked</th><th scope="col">Mail</th><th scope="col">Note</th></tr></thead>
<tbody>${shown.map(payerRow)}</tbody>
</table>
${shown.length === 0 ? html`<p class="hint">${none}</p>` : ''}
${pages > 1 ? pager(found, page, pages, view, csrf) : ''}`;
}

/** Which payers the table shows of how many, and the ways to the pages before and after. */
function pager(total: number, page: number, pages: number, view: PayerView, csrf: string): SafeHtml | string {
  if (total === 0) return '';
  const first = (page - 1) * PAGE_SIZE + 1;
  const last = Math.min(total, page * PAGE_SIZE);
  const link = (to: number, label: string, rel: string) =>
    to >= 1 && to <= pages ? viewLink({ ...view, page: to }, csrf, label, html`rel="${rel}"`) : '';
  return html`<nav class="pager" aria-label="Pages of payers"><span>${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}</span>
${link(page - 1, 'Previous', 'prev')} ${link(page + 1, 'Next', 'next')}</nav>`;
}

function payerRow(line: PayerLine): SafeHtml {
  const { where, next } = standing(line);
  return html`<tr data-category="${line.category}">
<td class="who">${whoCell(line.clientUserId, line.who)}</td><td>${where}</td><td>${next}${nextLink(line)}</td><td class="when">${when(line.checkedAt)}</td>
<td>${mailWords(line.mail)}</td><td>${note(line.error)}</td></tr>`;
}

/** The run's or read's note, less what the payer waits for: the sentence of where they stand says that already. */
function note(error: string): string {
  return error
    .split(' | ')
    .filter((part) => !/^(?:[\w-]+: )?waiting for /.test(part))
    .join(' | ');
}

/**
 * The payer as the team knows them, a link to their page: name and e-mail from the payer directory, and the id (alone
 * without an entry).
 */
export function whoCell(clientUserId: string, who: PayerWho | undefined): SafeHtml {
  const id = html`<span class="id">${clientUserId}</span>`;
  const email = who?.email ? html`<span class="email">${who.email}</span>` : '';
  return html`<a href="/payers/${encodeURIComponent(clientUserId)}">${who?.name ?? id}</a>${email}${who?.name ? id : ''}`;
}

/**
 * Where the payer stands, in one sentence, and the one thing to do next: both from the same facts, so that they never
 * disagree (an agreement completed is never said to be waited for).
 */
export function standing(line: PayerLine): { where: string; next: string } {
  const kyc = (line.kycStatus || 'not started').replace(/_/g, ' ');
  const signed = agreementCompleted(line);
  const action = LABEL.get(line.category)?.action ?? '';
  switch (line.category) {
    case 'payable':
      return {
        where: 'Payable: identity checked, agreement signed, bank account approved.',
        next: 'Nothing: ready to pay.',
      };
    case 'fix-rows':
      return {
        where: 'Not registered: their row has something to fix.',
        next: 'Fix their row (the note says what), then send it again.',
      };
    case 'not-registered':
      return { where: 'Not registered with the service yet.', next: 'Send their rows.' };
    case 'kyc-rejected':
      return {
        where: `The service rejected their identity check (KYC ${kyc}); nothing in their row is wrong.`,
        next: 'Contact them.',
      };
    case 'kyc-pending':
      return {
        where: `Registered; waiting for them to pass the identity check (KYC ${kyc})${signed ? '; the agreement is signed' : ', then to sign the agreement'}.`,
        next: line.kycUrl ? 'Send them their KYC link.' : 'Ask them to complete their identity check.',
      };
    case 'agreement-pending':
      return {
        where: `Identity checked; waiting for them to sign the agreement (${(line.agreementStatus || 'not signed').replace(/_/g, ' ')}).`,
        next: 'They sign it on their own page: serve invites them, or give them a new link (payer-onboard link new ID).',
      };
    case 'word-to-check':
      return {
        // The words as the service wrote them: they are what a person looks up.
        where: `The service answered a status this tool does not know (KYC ${line.kycStatus || 'none'}, agreement ${line.agreementStatus || 'none'}).`,
        next: `${capital(action)}.`,
      };
    case 'bank-failed':
      return {
        where: "Identity checked and agreement signed; their bank account failed the provider's check.",
        next: 'Ask them for other bank details, then send their bank row again.',
      };
    case 'bank-pending':
      return line.bank.startsWith('stored')
        ? {
            where:
              'Identity checked and agreement signed; their bank account is stored and the provider is checking it.',
            next: 'Nothing: the check ends by itself.',
          }
        : {
            where: 'Identity checked and agreement signed; no bank account stored yet.',
            next: 'Nothing: the next run of their rows attaches it.',
          };
    default:
      return { where: `${capital(LABEL.get(line.category)?.label ?? line.category)}.`, next: `${capital(action)}.` };
  }
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The one link the next step needs, only while it is needed: a payer waiting on their identity check gets their KYC link. */
function nextLink(line: PayerLine): SafeHtml | string {
  return line.category === 'kyc-pending' && line.kycUrl ? html` ${copyButton('KYC link', line.kycUrl, line)}` : '';
}

function copyButton(what: string, url: string, line: PayerLine): SafeHtml {
  const who = line.who?.name ?? line.clientUserId;
  return html`<button type="button" class="copy" data-copy="${url}" aria-label="Copy ${what} for ${who}">Copy ${what}</button>`;
}

/**
 * A payer's mails in a few words: a refusal first, with what to do; then when it was invited and reminded, whether it
 * opened its link and signed on its page, and what is next.
 */
function mailWords(mail: PayerMail | undefined): SafeHtml | string {
  if (mail === undefined) return '';
  const next = mail.next ? /^(.*) due (\S+)$/.exec(mail.next) : undefined;
  const words = [
    mail.refused !== undefined
      ? html`${MAIL_REFUSED.label}${mail.refused ? ` (${mail.refused})` : ''}: ${MAIL_REFUSED.action}`
      : undefined,
    mail.invitedAt ? html`invited ${when(mail.invitedAt)}` : undefined,
    mail.remindedAt ? html`reminded ${when(mail.remindedAt)}` : undefined,
    mail.openedAt ? html`link opened ${when(mail.openedAt)}` : undefined,
    mail.signedAt ? html`agreement signed on their page ${when(mail.signedAt)}` : undefined,
    mail.accountNoticeAt ? html`told of a new bank account ${when(mail.accountNoticeAt)}` : undefined,
    next ? html`${next[1]} due ${when(next[2]!)}` : mail.next ? html`${mail.next}` : undefined,
  ].filter((w) => w !== undefined);
  return joined(words, '; ');
}

/**
 * An ISO time as a `<time>` a person reads in their own time zone, named (the page's script writes it with the
 * browser's zone); without the script, its day and minute in UTC, said so.
 */
export function when(iso: string): SafeHtml | string {
  if (!iso) return '';
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/**
 * One payer: who they are, where they stand now and the one next step, the facts behind it, and their history as the
 * journal saw it; with the payers' own page on (`links`), the forms that make the payer a new link to it or revoke theirs.
 */
export function payerPage(line: PayerLine, history: readonly PayerEvent[], links?: { csrf: string }): SafeHtml {
  const { where, next } = standing(line);
  return html`<h1>${line.who?.name ?? html`<span class="id">${line.clientUserId}</span>`}</h1>
${line.who?.name || line.who?.email ? html`<p class="who-line">${line.who.email ? html`<span class="email">${line.who.email}</span> · ` : ''}<span class="id">${line.clientUserId}</span></p>` : ''}
<dl class="facts" id="payer">
  <dt>Where they stand</dt><dd id="standing">${where}</dd>
  <dt>Next</dt><dd id="next">${next}${nextLink(line)}</dd>
  <dt>clientUserId</dt><dd class="id">${line.clientUserId}</dd>
  ${line.userId ? html`<dt>userId</dt><dd class="id">${line.userId}</dd>` : ''}
  <dt>KYC</dt><dd>${line.kycStatus || 'not known'}</dd>
  <dt>Agreement</dt><dd>${line.agreementStatus || 'not known'}</dd>
  <dt>Bank account</dt><dd>${line.bank}</dd>
  ${line.since ? html`<dt>First seen</dt><dd>${when(line.since)}</dd>` : ''}
  ${line.checkedAt ? html`<dt>Last asked</dt><dd>${when(line.checkedAt)}</dd>` : ''}
  ${line.mail ? html`<dt>Mail</dt><dd id="payer-mail">${mailWords(line.mail)}</dd>` : ''}
  ${note(line.error) ? html`<dt>Note</dt><dd>${note(line.error)}</dd>` : ''}
</dl>
${links === undefined ? '' : linkForms(line.clientUserId, links.csrf)}
<h2>History</h2>
<table id="history"><thead><tr><th scope="col">When</th><th scope="col">What the tool saw</th></tr></thead>
<tbody>${history.map((e) => html`<tr><td class="when">${when(e.at)}</td><td>${e.what}</td></tr>`)}</tbody></table>
<p class="hint">Each line is what a run or a webhook's run found when it asked the service; what happened in between is not known.</p>
<p><a href="/payers">All payers</a></p>`;
}
