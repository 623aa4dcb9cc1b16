import { html, type SafeHtml } from '../core/html.js';
import { DATE_FORMAT, type DateFormat } from '../core/types.js';
import { mapHeader } from '../rows/columns.js';
import { readDate } from '../validate/cellTexts.js';
import { type Edits, sentHeader, type UploadTable } from './uploadTable.js';

/** How an upload's dates not written YYYY-MM-DD are read, and who said so. No format: as YYYY-MM-DD only. */
export interface UploadDates {
  format?: DateFormat;
  /** The person on the Map step, the mapping saved for these columns, or the tool from dates read one way only. */
  by: 'person' | 'saved' | 'guess';
}

/** One date format the Map step offers, and how it reads the file's dates. */
interface Offered {
  format: DateFormat;
  /** `day first`. */
  order: string;
  /** It reads every date shown as a real day. */
  readsAll: boolean;
  /** A date it reads (one only it reads, where there is one: `only`), and that day in words. */
  date: string;
  day: string;
  only: boolean;
}

/** The fields whose cells the date format reads (a signature's day, in `agreementCompleted`, too). */
const DATE_FIELDS: ReadonlySet<string> = new Set(['dateOfBirth', 'bankDateOfBirth', 'agreementCompleted']);

/** The orders `--date-format` is given in: the three that people write dates in. */
const ORDERS = [
  { tokens: ['DD', 'MM', 'YYYY'], order: 'day first' },
  { tokens: ['MM', 'DD', 'YYYY'], order: 'month first' },
  { tokens: ['YYYY', 'MM', 'DD'], order: 'year first' },
] as const;

/** A date written with numbers and one separator, some other way than YYYY-MM-DD. */
const OTHER_DATE = /^\d{1,4}([./-])\d{1,2}\1\d{1,4}$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** By the header's position: whether the check reads the column as a date, with the person's mapping. */
function dateColumns(header: readonly string[], mapping: Readonly<Record<string, string>>): boolean[] {
  const fields = mapHeader(sentHeader(header, mapping), 'payers').fields;
  return header.map((_, i) => DATE_FIELDS.has(fields[i] ?? ''));
}

/**
 * The date formats that read the upload's dates written some other way than YYYY-MM-DD (those of the rows the page
 * holds: its first ones and the ones refused), with the separator they are written with; undefined when there are none,
 * or none of them reads as a real day in any order.
 */
function dateChoice(table: UploadTable, mapping: Readonly<Record<string, string>>): Offered[] | undefined {
  const at = dateColumns(table.header, mapping);
  const dates = new Set<string>();
  for (const row of table.rows)
    for (let i = 0; i < row.texts.length; i++) {
      const date = row.texts[i]!.trim();
      if (at[i] && OTHER_DATE.test(date) && !ISO_DAY.test(date)) dates.add(date);
    }
  if (dates.size === 0) return undefined;
  const separator = mostUsed([...dates].map((date) => OTHER_DATE.exec(date)![1]!));
  const days = ORDERS.map(({ tokens }) => [...dates].map((date) => dayOf(date, tokens.join(separator))));
  const offered: Offered[] = [];
  ORDERS.forEach(({ tokens, order }, k) => {
    const read = days[k]!;
    // Its example: a date only it reads, where one is (what tells the orders apart), else the first it reads.
    const only = read.findIndex((day, d) => day !== undefined && days.every((other, j) => j === k || !other[d]));
    const first = only >= 0 ? only : read.findIndex((day) => day !== undefined);
    if (first < 0) return;
    const readsAll = read.every((day) => day !== undefined);
    offered.push({
      format: tokens.join(separator),
      order,
      readsAll,
      date: [...dates][first]!,
      day: inWords(read[first]!),
      only: only >= 0,
    });
  });
  // Dates no format reads (`31.02.1990`) are simply wrong: there is nothing to choose.
  return offered.length === 0 ? undefined : offered;
}

/**
 * The date formats that read every date of the upload written some other way than YYYY-MM-DD (one: the dates can be
 * read only that way, the tool's guess); undefined when it has no such date.
 */
export function readings(table: UploadTable, mapping: Readonly<Record<string, string>>): DateFormat[] | undefined {
  return dateChoice(table, mapping)
    ?.filter((o) => o.readsAll)
    .map((o) => o.format);
}

/** The date format the upload's dates can be read in and no other, if there is one: the tool's guess, applied. */
export function onlyReading(table: UploadTable, mapping: Readonly<Record<string, string>>): DateFormat | undefined {
  const all = readings(table, mapping) ?? [];
  return all.length === 1 ? all[0] : undefined;
}

/**
 * An upload's dates once its Map form is posted: the format chosen (null: YYYY-MM-DD only); where none was (nothing
 * posted), the one someone chose or saved before, else the only one its dates read in with this mapping (the columns
 * read as dates may have changed with it).
 */
export function datesMapped(
  before: UploadDates | undefined,
  table: UploadTable,
  posted: { mapping: Readonly<Record<string, string>>; dateFormat: DateFormat | null | undefined },
): UploadDates | undefined {
  const { mapping, dateFormat } = posted;
  if (dateFormat !== undefined) return { ...(dateFormat === null ? {} : { format: dateFormat }), by: 'person' };
  if (before !== undefined && before.by !== 'guess') return before;
  const guess = onlyReading(table, mapping);
  return guess === undefined ? undefined : { format: guess, by: 'guess' };
}

/**
 * The Map step's date format, in its form (`dateFormat`): the format applied preselected, with who chose it; or, where
 * the dates can be read more than one way and nobody chose, a choice with nothing preselected (nothing is posted, and
 * nothing applied, until the person picks one). Nothing when the upload has no dates written another way.
 */
export function dateSection(
  table: UploadTable,
  mapping: Readonly<Record<string, string>>,
  dates?: UploadDates,
): SafeHtml {
  const offered = dateChoice(table, mapping);
  if (offered === undefined && dates?.format === undefined) return html``;
  const formats = offered ?? [];
  const chosen = dates?.format;
  const known = chosen === undefined || formats.some((o) => o.format === chosen);
  const options = [
    ...(dates === undefined
      ? [html`<option value="" disabled selected>Choose how the dates are written</option>`]
      : []),
    ...formats.map(
      (o) =>
        html`<option value="${o.format}"${o.format === chosen ? html` selected` : ''}>${capital(o.order)}: ${o.format} (${o.date} is ${o.day})</option>`,
    ),
    ...(known ? [] : [html`<option value="${chosen}" selected>${chosen}</option>`]),
    html`<option value="YYYY-MM-DD"${dates !== undefined && chosen === undefined ? html` selected` : ''}>YYYY-MM-DD only</option>`,
  ];
  return html`<div class="dates" id="dates">
<p class="note" role="status" id="dates-note">${dateNote(formats, dates)}</p>
<label for="date-format">How the dates are written</label>
<select id="date-format" name="dateFormat">${options}</select>
</div>`;
}

/** What the Map step says of the date format: applied and by whom, or why it is asked. */
function dateNote(offered: readonly Offered[], dates: UploadDates | undefined): string {
  const format = dates?.format;
  const reading = offered.find((o) => o.format === format);
  // The date that settled it may be in a row no longer shown (refused at first, read since): then none is quoted.
  if (dates?.by === 'guess' && reading !== undefined) {
    const which = reading.only ? ` (${reading.date} is ${reading.day}): they` : ': some of them';
    return `The dates are written ${reading.order}${which} can be read only that way, so they are read as ${format}. Choose another format if that is wrong.`;
  }
  if (dates?.by === 'saved' && format !== undefined)
    return `The date format saved for files with these columns is applied: ${format}.`;
  if (dates?.by === 'guess') return `Dates are read as ${format}, the one format that reads them.`;
  if (dates !== undefined)
    return format === undefined
      ? 'Dates are read as YYYY-MM-DD only, as chosen.'
      : `Dates are read as ${format}, as chosen.`;
  const all = offered.filter((o) => o.readsAll);
  const [one] = all;
  if (one !== undefined && all.length === 1)
    return `The dates can be read only as ${one.format} (${one.date} is ${one.day}): choose it to read them so.`;
  // Each that reads them all reads the first date of the file: what it makes of it shows the difference.
  if (one !== undefined)
    return `The dates could be written ${all.map((o) => o.order).join(' or ')}: ${one.date} is ${all.map((o) => `${o.day} ${o.order}`).join(', ')}. Choose how they are written; until then, rows with such dates are left to fix.`;
  return 'No one date format reads every date of the file: choose the one most of them are written in; the others are left to fix.';
}

/** The ISO day a date is in `format`, if it is a real day. */
function dayOf(text: string, format: DateFormat): string | undefined {
  const iso = readDate(text, format);
  if (iso === undefined) return undefined;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : undefined;
}

const inWords = (iso: string) =>
  new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

const capital = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);

function mostUsed(items: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

/**
 * The date format a Map form posted: a format (upper case, as `--date-format` takes it), null for YYYY-MM-DD only, or
 * undefined when none was posted (nothing chosen where the dates could be read more than one way).
 */
export function postedDateFormat(body: Record<string, unknown>): DateFormat | null | undefined {
  const given = body['dateFormat'];
  if (typeof given !== 'string') return undefined;
  const format = given.trim().toUpperCase();
  if (format === 'YYYY-MM-DD') return null;
  return DATE_FORMAT.test(format) ? format : undefined;
}

/**
 * The rows of a file of the page's making with their dates in YYYY-MM-DD, as the date format chosen reads them, and
 * the person's fixes likewise: the inbox runs that file with its own options, which know nothing of the page's date
 * format. A date the format does not read is left as written, for the check to say so. The table's rows are changed
 * in place (it was read for this file alone).
 */
export function inIsoDates(table: UploadTable, edits: Edits): Edits {
  const format = edits.dateFormat;
  if (format === undefined) return edits;
  const at = dateColumns(table.header, edits.mapping);
  const iso = (text: string) => (OTHER_DATE.test(text.trim()) ? (dayOf(text.trim(), format) ?? text) : text);
  for (const row of table.rows) for (let i = 0; i < row.texts.length; i++) if (at[i]) row.texts[i] = iso(row.texts[i]!);
  const fixes = edits.fixes.map((fix) =>
    at[table.header.indexOf(fix.column)] ? { ...fix, value: iso(fix.value) } : fix,
  );
  return { ...edits, fixes };
}
