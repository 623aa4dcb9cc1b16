import { html, type SafeHtml, toText } from '../core/html.js';
import type { Role } from '../store/Store.js';
import { allows } from './roles.js';

/**
 * A whole page: its title, a link past the header to the page's content (the first stop of the keyboard), the
 * signed-in header (with the sign-out form) when there is a session, the body, and, signed in, the footer that says
 * where four eyes stands (`fourEyes`: the signed-in scope puts it on each request's session).
 * `scripts`: the page's own files of the package's `web/` folder besides app.js (served under /assets/).
 */
export function layout(
  title: string,
  body: SafeHtml,
  signedIn?: { csrf: string; user?: { name: string; role: Role }; fourEyes?: string },
  scripts: string[] = [],
): string {
  const user = signedIn?.user;
  const may = (role: Role) => user === undefined || allows(user.role, role);
  const header = signedIn
    ? html`<header>
        <a class="brand" href="/">payer-onboard</a>
        <nav aria-label="Pages">${may('preparer') ? html`<a href="/">Upload</a> ` : ''}<a href="/payers">Payers</a>${may('admin') ? html` <a href="/admin/users">Users</a> <a href="/admin/audit">Audit</a> <a href="/admin/settings">Settings</a>` : ''}</nav>
        ${user === undefined ? '' : html`<span class="who">${user.name} (${user.role})</span>`}
        <form method="post" action="/logout"><input type="hidden" name="_csrf" value="${signedIn.csrf}"><button type="submit">Sign out</button></form>
      </header>`
    : html`<header><span class="brand">payer-onboard</span></header>`;
  return toText(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · payer-onboard</title>
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
${scripts.map(
  (file) => html`<script src="/assets/${file}" defer></script>
`,
)}
</head>
<body>
<a class="skip" href="#main">Skip to the page's content</a>
${header}
<main id="main" tabindex="-1">
${body}
</main>
${signedIn?.fourEyes === undefined ? '' : html`<footer><p id="four-eyes">${signedIn.fourEyes}</p></footer>`}
</body>
</html>
`);
}
