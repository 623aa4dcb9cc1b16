// Every page, report and mail is built with `html`, which escapes each value put in it, so a cell of a spreadsheet
// (or a server's words) can never become markup. Only what `html` itself made is taken as markup: a forgotten escape
// cannot happen, since there is nothing to remember.

const SAFE = Symbol('safe html');

export interface SafeHtml {
  readonly [SAFE]: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element or a quoted attribute: the one escape of the tool. */
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

/** Pieces with `separator` (text, escaped like any value) between each two. */
export function joined(parts: readonly Part[], separator: string): SafeHtml {
  return html`${parts.map((part, i) => (i === 0 ? html`${part}` : html`${separator}${part}`))}`;
}

/**
 * Markup the team wrote itself, not data: a template file they edit (the mails'). The one way to take text as markup
 * as it is; never give it a value from a spreadsheet, a payer or a server.
 */
export function teamMarkup(text: string): SafeHtml {
  return { [SAFE]: text };
}

export function toText(page: SafeHtml): string {
  return page[SAFE];
}
