import { csvSafe } from '../core/formulaGuard.js';
import type { AuditFilter, AuditLine } from '../store/Store.js';

/** Lines of the audit trail a page shows. */
export const AUDIT_PAGE_SIZE = 100;

/**
 * What the audit page is asked to show, as its form and links say it: the filters (a name, an action and a subject as
 * the trail writes them; days, YYYY-MM-DD, both included), the time zone the days are in (the browser's, which the
 * page's script adds; UTC without it) and the page.
 */
export interface AuditView {
  who: string;
  action: string;
  subject: string;
  from: string;
  to: string;
  tz: string;
  page: number;
}

/** The CSV download's columns, the page's in the same order: the time in UTC, as the trail keeps it. */
export const AUDIT_CSV_COLUMNS = ['when (UTC)', 'who', 'address', 'action', 'subject', 'details'];

/**
 * The view a query asks for, the store's filter for it, and what in it cannot be read (a day that is none): that
 * filter is left out and the page says so. The trail holds no personal value, so its filters may sit in a URL.
 */
export function auditViewOf(query: unknown): { view: AuditView; filter: AuditFilter; problems: string[] } {
  const given = (query ?? {}) as Record<string, unknown>;
  const text = (name: string, most = 200) =>
    typeof given[name] === 'string' ? (given[name] as string).trim().slice(0, most) : '';
  const page = /^\d{1,6}$/.test(text('page')) ? Math.max(1, Number(text('page'))) : 1;
  const tz = knownZone(text('tz', 64)) ? text('tz', 64) : '';
  const view: AuditView = {
    who: text('who'),
    action: text('action'),
    subject: text('subject'),
    from: text('from', 10),
    to: text('to', 10),
    tz,
    page,
  };
  const problems: string[] = [];
  const day = (name: 'from' | 'to', label: string, after: number): string | undefined => {
    if (view[name] === '') return undefined;
    if (isDay(view[name])) return dayStart(view[name], after, tz || 'UTC');
    problems.push(`${label} is not a day: give it as YYYY-MM-DD`);
    view[name] = '';
    return undefined;
  };
  const filter: AuditFilter = {
    who: view.who || undefined,
    action: view.action || undefined,
    subject: view.subject || undefined,
    from: day('from', 'From', 0),
    // The whole of the last day: up to the start of the next.
    to: day('to', 'To', 1),
  };
  return { view, filter, problems };
}

/** The query string of a view (`page` as given), for links that keep it; empty values left out. */
export function auditQuery(view: AuditView, page = view.page): string {
  const params = new URLSearchParams();
  for (const name of ['who', 'action', 'subject', 'from', 'to', 'tz'] as const)
    if (view[name] !== '') params.set(name, view[name]);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return query === '' ? '' : `?${query}`;
}

/**
 * A line's details as a person reads them: `name: Vic · role: viewer · email: yes`. The trail keeps them as a JSON
 * object of ids, counts and masked values; anything else is shown as it is.
 */
export function detailWords(detail: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return detail;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? objectWords(parsed) : detail;
}

function objectWords(value: object): string {
  return Object.entries(value)
    .map(([key, v]) => `${key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}: ${valueWords(v)}`)
    .join(' · ');
}

function valueWords(value: unknown): string {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.map(valueWords).join(', ');
  if (typeof value === 'object') return `(${objectWords(value)})`;
  return String(value);
}

/** A line as the CSV download writes it: the page's columns, each cell guarded against a spreadsheet's formulas. */
export function auditCsvLine(line: AuditLine): string[] {
  return [line.at, line.who, line.address, line.action, line.subject, detailWords(line.detail)].map(csvSafe);
}

function isDay(text: string): boolean {
  if (!/^\d{4}-\d\d-\d\d$/.test(text)) return false;
  return new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
}

function knownZone(zone: string): boolean {
  if (zone === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** When a day (`after` days after `day`) starts in a time zone, as the trail's ISO times are written. */
function dayStart(day: string, after: number, zone: string): string {
  const midnight = Date.parse(`${day}T00:00:00Z`) + after * 86_400_000;
  // The zone's offset at its midnight, found in two steps: once at UTC's midnight, once again where that lands.
  const first = midnight - offsetOf(midnight, zone);
  return new Date(midnight - offsetOf(first, zone)).toISOString();
}

/** How far ahead of UTC a zone's clocks are at a moment, in ms. */
function offsetOf(at: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - Math.floor(at / 1000) * 1000;
}
