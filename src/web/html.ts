// Server-rendered pages: every value put in a page goes through `html`, which escapes it, so a cell of a spreadsheet
// (or a server's words) can never become markup. Only what `html` itself made is taken as markup.

const SAFE = Symbol('safe html');

export interface SafeHtml {
  readonly [SAFE]: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && SAFE in value;
}

type Part = SafeHtml | string | number | boolean | undefined | null | readonly Part[];

function render(value: Part): string {
  if (value === undefined || value === null || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (isSafe(value)) return value[SAFE];
  return escapeHtml(String(value));
}

/** A piece of a page: the literal text as written, each value escaped (lists joined, nothing for undefined/false). */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return { [SAFE]: out };
}

export function toText(page: SafeHtml): string {
  return page[SAFE];
}

/**
 * A whole page: its title, the signed-in header (with the sign-out form) when there is a session, and the body.
 * `scripts`: the page's own files of the package's `web/` folder besides app.js (served under /assets/).
 */
export function layout(title: string, body: SafeHtml, signedIn?: { csrf: string }, scripts: string[] = []): string {
  const header = signedIn
    ? html`<header>
        <a class="brand" href="/">payer-onboard</a>
        <nav><a href="/">Upload</a> <a href="/payers">Payers</a></nav>
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
${header}
<main>
${body}
</main>
</body>
</html>
`);
}
