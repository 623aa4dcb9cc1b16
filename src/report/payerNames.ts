import { html, type SafeHtml } from '../core/html.js';
import type { DirectoryEntry } from '../store/Store.js';

/**
 * Who a payer is, as the payer directory has them: what the finance team's pages and reports show beside the id. Only
 * what the directory holds, never a guess: a payer without an entry has neither.
 */
export interface PayerWho {
  /** First and last name, or the company; both as `Ada Lovelace (Acme Ltd)` where the entry has both. */
  name?: string;
  email?: string;
}

/** A directory entry as the team reads it (undefined: no entry, or one with nothing to show). */
export function payerWho(entry: DirectoryEntry | undefined): PayerWho | undefined {
  if (entry === undefined) return undefined;
  const person = [entry.firstName, entry.lastName].filter((part) => part !== undefined && part !== '').join(' ');
  const company = entry.companyName ?? '';
  const name = person && company ? `${person} (${company})` : person || company;
  const who: PayerWho = { ...(name ? { name } : {}), ...(entry.email ? { email: entry.email } : {}) };
  return Object.keys(who).length === 0 ? undefined : who;
}

/** Looks up who the payers with these ids are (a batch of the store's directory); a report without one shows ids. */
export type WhoLookup = (clientUserIds: readonly string[]) => Promise<ReadonlyMap<string, DirectoryEntry>>;

/** Who of these ids the lookup knows, by id; a lookup that fails (the store gone) leaves every payer an id alone. */
export async function whoOf(
  ids: Iterable<string>,
  lookup: WhoLookup | undefined,
): Promise<ReadonlyMap<string, PayerWho>> {
  const found = new Map<string, PayerWho>();
  const distinct = [...new Set(ids)].filter((id) => id !== '');
  if (lookup === undefined || distinct.length === 0) return found;
  const entries = await lookup(distinct).catch(() => new Map<string, DirectoryEntry>());
  for (const [id, entry] of entries) {
    const who = payerWho(entry);
    if (who !== undefined) found.set(id, who);
  }
  return found;
}

/** A payer in a report's table cell: the name and e-mail the directory gives, then the id (alone without an entry). */
export function whoCell(clientUserId: string, who: PayerWho | undefined): SafeHtml {
  const name = who?.name ? html`<span class="name">${who.name}</span> ` : '';
  const email = who?.email ? html`<span class="email">${who.email}</span> ` : '';
  return html`${name}${email}<span class="id">${clientUserId}</span>`;
}

/** The style of whoCell's parts in a report: one per line, the id never broken. */
export const WHO_STYLE = html`td.who span { display: block; } td.who .name { font-weight: 600; } td.who .email { color: #444; } .id { white-space: nowrap; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 13px; }`;
