import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs';
import { html, type SafeHtml, toText } from '../core/html.js';

/**
 * What every report page shares: type, headings, count cards, tables, the filter bar, pills. On a phone's width only a
 * table scrolls sideways, inside its own box (at a desk its header stays in sight, which a scroll box would stop); and
 * whatever the keyboard reaches shows a ring that stands out from the page.
 */
export const BASE_STYLE = html`
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1d1d1f; background: #fff; margin: 24px auto; max-width: 1100px; padding: 0 16px; overflow-wrap: break-word; }
:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.meta { color: #555; margin: 0; } .meta b { color: #1d1d1f; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 18px 0 4px; }
.card { border: 1px solid #ddd; border-left: 6px solid #999; border-radius: 6px; padding: 8px 16px; min-width: 110px; }
.card .n { display: block; font-size: 28px; font-weight: 600; }
.abort { background: #fdecea; border: 1px solid #c62828; border-radius: 6px; padding: 8px 12px; margin-top: 12px; }
.charts { display: flex; gap: 32px; flex-wrap: wrap; }
svg { max-width: 100%; height: auto; }
svg .lbl, svg .val, svg .tick { font: 12px system-ui, "DejaVu Sans", sans-serif; fill: #333; } svg .grid { stroke: #e3e3e3; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
th { background: #f5f5f7; position: sticky; top: 0; } td.msg { word-break: break-word; }
.pill { border-radius: 9px; padding: 0 8px; color: #fff; font-size: 12px; white-space: nowrap; }
.filter { margin: 8px 0; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; } .filter input { width: 320px; max-width: 100%; box-sizing: border-box; padding: 4px 6px; }
.filter label { display: flex; gap: 4px; align-items: center; flex: 0 1 auto; min-width: 0; }
@media (max-width: 760px) { .scroll { overflow-x: auto; } .scroll > table { min-width: 46em; } }
.muted { color: #666; } .next { margin: 12px 0 0; padding-left: 20px; } .next li { margin: 2px 0; }
`;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/**
 * A whole report page: one file that loads nothing. Its style and script are inline, and their hashes go into the
 * page's Content-Security-Policy, which forbids every fetch, so the page provably loads nothing from anywhere.
 */
export function htmlPage(page: { title: string; style: SafeHtml; script: SafeHtml; body: SafeHtml }): string {
  const style = toText(page.style);
  const script = toText(page.script);
  const csp = `default-src 'none'; style-src 'sha256-${sha256(style)}'; script-src 'sha256-${sha256(script)}'; img-src 'none'; base-uri 'none'; form-action 'none'`;
  return toText(html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
<style>${page.style}</style></head>
<body>
<main>
${page.body}
</main>
<script>${page.script}</script>
</body></html>
`);
}

/**
 * The table filter: plain DOM, no library. Filters the rows of table `#table` by the text box `#q` and by the
 * select `#o` against each row's `data-kind`, and shows how many are left in `#shown`.
 */
export const FILTER_SCRIPT = html`(function () {
  var q = document.getElementById('q'), o = document.getElementById('o'), shown = document.getElementById('shown');
  var rows = document.querySelectorAll('#table tbody tr');
  function apply() {
    var text = q.value.toLowerCase(), want = o.value, n = 0;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      var hit = (!want || r.getAttribute('data-kind') === want) && (!text || r.textContent.toLowerCase().indexOf(text) >= 0);
      r.hidden = !hit;
      if (hit) n++;
    }
    shown.textContent = String(n);
  }
  q.addEventListener('input', apply);
  o.addEventListener('change', apply);
  apply();
})();`;

/** A link the service gave, only if it is http(s): anything else (a `javascript:` URL) is shown as text. */
export function link(url: string | undefined, text: string): SafeHtml | undefined {
  if (!url) return undefined;
  return /^https?:\/\//i.test(url)
    ? html`<a href="${url}" rel="noreferrer noopener">${text}</a>`
    : html`<span>${text}: ${url}</span>`;
}

/**
 * A table in a box of its own, which scrolls sideways where the page is too narrow for it; the keyboard can reach the
 * box, and a screen reader names it, so its hidden columns are reachable without a mouse.
 */
export function scrollBox(label: string, table: SafeHtml): SafeHtml {
  return html`<div class="scroll" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
}

/**
 * Writes a report page: mode 0600 before a byte of it is written, also over a file that was there with another mode.
 * A report names payers (their names and e-mail addresses where the payer directory has them) and holds their links.
 */
export function writePrivate(path: string, text: string): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
