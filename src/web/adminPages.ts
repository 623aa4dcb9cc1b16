import { html, type SafeHtml } from '../core/html.js';
import { type AuditLine, ROLES, type Role, type WebUser } from '../store/Store.js';
import { AUDIT_PAGE_SIZE, type AuditView, auditQuery, detailWords } from './auditView.js';
import { when } from './payerPages.js';
import { PASSWORD_LINK_HOURS } from './teamUsers.js';
import { SHARED_NAME, type Viewer } from './WebAuth.js';

/** What an action of the users page says on the page it answers with. */
export interface UsersNote {
  ok?: string;
  problem?: string;
  /** A one-time link made: whose, the link (shown this once), and what became of its mail. */
  link?: { name: string; url: string; mailed?: string };
  /** The add form as it was sent, when it was refused: filled in again. */
  form?: { name: string; role: string; email: string };
}

/**
 * The users page: every user with their role, e-mail, state and who made them, the forms that change each, and the
 * form that adds one. The admin's own row has no form that could leave the team without an admin.
 */
export function usersPage(users: readonly WebUser[], viewer: Viewer, csrf: string, note: UsersNote = {}): SafeHtml {
  const token = html`<input type="hidden" name="_csrf" value="${csrf}">`;
  const form = note.form ?? { name: '', role: 'preparer', email: '' };
  return html`<h1>Users</h1>
<p>Who may use this page, and what each may do. A user is disabled, never deleted: the audit trail names them.</p>
${note.problem ? html`<p class="problem" role="alert" id="users-note">${note.problem}</p>` : ''}
${note.ok ? html`<p class="ok" role="status" id="users-note">${note.ok}</p>` : ''}
${note.link ? linkPanel(note.link) : ''}
${viewer.userId === undefined ? html`<p class="note">You are signed in with the shared password. It signs in no more once the team has a user: add yourself first, as admin, and keep the link to set your own password.</p>` : ''}
<table id="users">
<thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">E-mail</th><th scope="col">State</th><th scope="col">Added</th><th scope="col">Change</th></tr></thead>
<tbody>${users.map((user) => userRow(user, viewer, token))}</tbody>
</table>
${users.length === 0 ? html`<p class="hint">No user yet.</p>` : ''}
<h2 id="add-title">Add a user</h2>
<form method="post" action="/admin/users" class="card narrow" id="add-user" aria-labelledby="add-title">
  ${token}
  <label for="new-name">Name</label>
  <input id="new-name" name="name" required maxlength="64" autocomplete="off" value="${form.name}">
  <label for="new-role">Role</label>
  ${roleSelect('new-role', form.role)}
  <label for="new-email">E-mail (optional)</label>
  <input id="new-email" name="email" type="email" autocomplete="off" value="${form.email}" aria-describedby="new-email-hint">
  <p class="hint" id="new-email-hint">Where serve mails their link, when its mail is set up; how the company's sign-in knows them.</p>
  <button type="submit">Add and make their link</button>
</form>
<p class="hint">A one-time link sets the user's password: it works once, within ${PASSWORD_LINK_HOURS} hours. The roles: a viewer sees the Payers and the reports; a preparer also uploads, maps and fixes; an approver also sends and hands out payers' links; an admin also manages users and reads the audit trail.</p>`;
}

function linkPanel(link: NonNullable<UsersNote['link']>): SafeHtml {
  return html`<section class="card" id="new-link" aria-labelledby="new-link-title">
<h2 id="new-link-title">The one-time link for ${link.name}</h2>
<p>Hand it to ${link.name}: it sets their password and signs them in. It works once, within ${PASSWORD_LINK_HOURS} hours, and is shown only now: the tool keeps only a digest of it.</p>
<p><span class="link-text" id="link-text">${link.url}</span></p>
<p><button type="button" class="copy" data-copy="${link.url}">Copy the link</button></p>
${link.mailed ? html`<p id="link-mailed">${link.mailed}</p>` : ''}
</section>`;
}

function userRow(user: WebUser, viewer: Viewer, token: SafeHtml): SafeHtml {
  const self = viewer.userId === user.id;
  const path = `/admin/users/${encodeURIComponent(user.id)}`;
  const role = self
    ? html`${user.role} <span class="hint">(yours: another admin changes it)</span>`
    : html`<form method="post" action="${path}/role" class="inline">${token}<label class="visually-hidden" for="role-${user.id}">Role of ${user.name}</label>${roleSelect(`role-${user.id}`, user.role)} <button type="submit" class="secondary" aria-label="Change the role of ${user.name}">Change</button></form>`;
  const toggle = self
    ? ''
    : user.disabledAt === undefined
      ? html`<form method="post" action="${path}/disable" class="inline">${token}<button type="submit" class="secondary" aria-label="Disable ${user.name}">Disable</button></form>`
      : html`<form method="post" action="${path}/enable" class="inline">${token}<button type="submit" class="secondary" aria-label="Enable ${user.name}">Enable</button></form>`;
  const link =
    user.disabledAt === undefined
      ? html`<form method="post" action="${path}/link" class="inline">${token}<button type="submit" class="secondary" aria-label="New link for ${user.name}">New link</button></form>`
      : '';
  return html`<tr data-user="${user.name}">
<th scope="row">${user.name}${self ? ' (you)' : ''}</th><td>${role}</td><td class="email">${user.email ?? ''}</td>
<td data-state>${stateWords(user)}</td><td>${user.createdBy}, ${when(user.createdAt)}</td><td class="actions-cell">${toggle} ${link}</td></tr>`;
}

/** Where a user stands: able to sign in, waiting to set their password, or disabled (since when). */
function stateWords(user: WebUser): SafeHtml | string {
  if (user.disabledAt !== undefined) return html`disabled ${when(user.disabledAt)}`;
  return user.passwordHash === undefined ? 'no password yet' : 'active';
}

function roleSelect(id: string, chosen: string): SafeHtml {
  return html`<select id="${id}" name="role">${ROLES.map((role: Role) => html`<option value="${role}"${role === chosen ? html` selected` : ''}>${role}</option>`)}</select>`;
}

/**
 * The audit trail, newest first, a page of it with the filters that chose it and the CSV of every line they keep.
 * Who, action and subject are links that filter by them.
 */
export function auditPage(
  shown: { lines: readonly AuditLine[]; total: number },
  view: AuditView,
  names: readonly string[],
  problems: readonly string[],
): SafeHtml {
  const pages = Math.max(1, Math.ceil(shown.total / AUDIT_PAGE_SIZE));
  const field = (name: 'who' | 'action' | 'subject', label: string, more: SafeHtml | string = '') =>
    html`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${view[name]}" autocomplete="off" ${more}></div>`;
  return html`<h1>Audit trail</h1>
<p>Every sign-in, upload, change, approval, send and change of users, newest first: who, when, from which address. Nothing can change or remove a line. Details hold ids, counts and masked values, never a payer's personal value.</p>
${problems.map((problem) => html`<p class="problem" role="alert">${problem}.</p>`)}
<form method="get" action="/admin/audit" class="search" id="audit-filters" role="search" aria-label="Filter the trail">
  ${field('who', 'Who', html`list="audit-names"`)}
  <datalist id="audit-names">${[SHARED_NAME, ...names].map((name) => html`<option value="${name}"></option>`)}</datalist>
  ${field('action', 'Action')}
  ${field('subject', 'Subject (an id)')}
  <div><label for="f-from">From</label><input id="f-from" name="from" type="date" value="${view.from}"></div>
  <div><label for="f-to">To</label><input id="f-to" name="to" type="date" value="${view.to}"></div>
  <input type="hidden" name="tz" value="${view.tz}" data-time-zone>
  <button type="submit">Filter</button>
  <a href="/admin/audit">Clear</a>
</form>
<p class="hint">Each filter is the whole value as the table writes it. Days are in <span data-zone-name>${view.tz || 'UTC'}</span>, both included.</p>
<div class="actions"><a class="button" id="audit-csv" href="/admin/audit.csv${auditQuery({ ...view, page: 1 })}" download>Download these lines as CSV</a></div>
${auditPager(shown.total, Math.min(view.page, pages), pages, view)}
<table id="audit">
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Address</th><th scope="col">Action</th><th scope="col">Subject</th><th scope="col">Details</th></tr></thead>
<tbody>${shown.lines.map((line) => auditRow(line, view))}</tbody>
</table>
${shown.lines.length === 0 ? html`<p class="hint">No line of the trail is kept by these filters.</p>` : ''}
${pages > 1 ? auditPager(shown.total, Math.min(view.page, pages), pages, view) : ''}`;
}

function auditRow(line: AuditLine, view: AuditView): SafeHtml {
  const filterBy = (name: 'who' | 'action' | 'subject', value: string) =>
    value === ''
      ? ''
      : html`<a href="/admin/audit${auditQuery({ ...view, [name]: value, page: 1 })}" title="Only the lines of this ${name}">${value}</a>`;
  return html`<tr data-seq="${line.seq ?? ''}"><td class="when">${when(line.at)}</td><td>${filterBy('who', line.who)}</td>
<td class="id">${line.address}</td><td>${filterBy('action', line.action)}</td><td class="id">${filterBy('subject', line.subject)}</td><td>${detailWords(line.detail)}</td></tr>`;
}

function auditPager(total: number, page: number, pages: number, view: AuditView): SafeHtml | string {
  if (total === 0) return '';
  const first = (page - 1) * AUDIT_PAGE_SIZE + 1;
  const last = Math.min(total, page * AUDIT_PAGE_SIZE);
  const link = (to: number, label: string, rel: string) =>
    to >= 1 && to <= pages ? html`<a href="/admin/audit${auditQuery(view, to)}" rel="${rel}">${label}</a>` : '';
  return html`<nav class="pager" aria-label="Pages of the trail"><span>${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}</span>
${link(page - 1, 'Newer', 'prev')} ${link(page + 1, 'Older', 'next')}</nav>`;
}
