import type { RowError } from '../core/types.js';
import { SHAPE_NOTE } from '../validate/textChecks.js';

/** One line of "rows to fix": where the problem sits, what kind it is, how many rows have it, and what fixes it. */
export interface FixGroup {
  /** The column as the file names it, or the API step; `row` for a problem of the row as a whole. */
  where: string;
  problem: string;
  rows: number;
  /** The option of the next run that fixes every row of the group: `--date-format DD/MM/YYYY`. */
  option?: string;
  /** What to do where no one option does it, or where the rows do not tell which option would. */
  advice?: string;
}

/** A problem as grouped: the same `where` and `problem` make one group, whatever value each row held. */
interface Kind {
  where: string;
  problem: string;
  option?: string;
  advice?: string;
  /** For a date written in another order: the `--date-format` (or the two) that would read it. */
  dateFormats?: string;
}

/** ` (1 of 2)`: which of a row's bank accounts a message is about. */
const ACCOUNT_LABEL = / \(\d+ of \d+\)$/;
const JSONL = /\.(?:jsonl|ndjson)$/i;
/** The note withValue puts after a personal value's shape, as a pattern. */
const NOTE = SHAPE_NOTE.replace(/[()]/g, '\\$&');
const DATE_READING = new RegExp(
  `^must be YYYY-MM-DD, got "[^"]*" ${NOTE}: .*--date-format (\\S+)(?: or (\\S+))? reads it$`,
);
const QUOTED_VALUE = new RegExp(`, got "(?:[^"\\\\]|\\\\.)*"(?: ${NOTE})?`);
const CHANGED = /changed since the payer was registered and was not sent (\([^)]*\))/;

/**
 * What kind of problem one error of a row is. Grouped on the error's own column or step and its message without the
 * value it quotes (a message carries only the value's shape, or nothing of a sensitive one), so eight different
 * dates of one column are one group.
 */
function kindOf(error: RowError, source: string, clientUserId: string): Kind {
  const message = error.message;
  if (error.column !== undefined) {
    // Every entry of a JSONL `paymentDetails` array is one column for this purpose.
    const where = error.column.replace(/\[\d+\]/g, '[…]');
    const date = DATE_READING.exec(message);
    if (date) return { where, problem: 'dates', dateFormats: date[2] ? `${date[1]} or ${date[2]}` : date[1]! };
    if (message === 'is required' && JSONL.test(source))
      return {
        where,
        problem: message,
        advice: 'fill it in; if the lines call it by another key, name that key with --map',
      };
    if (/appears again: the same payer is already on/.test(message))
      return { where, problem: 'the same payer as an earlier row', advice: 'delete the repeat' };
    // Which cells each such row fills differs from row to row; what they are, and what to do, does not.
    if (message.startsWith('is not a payer row: only '))
      return {
        where,
        problem: 'not payers: only a cell or two filled, like a total or a note',
        advice: 'delete these rows, or move them off the sheet',
      };
    return { where, problem: normalise(withoutValue(message), clientUserId) };
  }
  const where = error.step ?? 'row';
  const changed = CHANGED.exec(message);
  if (changed) {
    return {
      where,
      problem: `payer data changed since it was registered, not sent ${changed[1]}`,
      option: '--compliance-path /v2/payer',
    };
  }
  if (message.startsWith('payer not registered'))
    return { where, problem: message, advice: "run the payer's own row first, or in the same run" };
  return { where, problem: normalise(message, clientUserId) };
}

/**
 * A problem no change to the file settles: the service refused the payer's identity check (and so their bank account
 * was not sent), or the payer is still waiting past --max-wait. The payer is contacted; nothing in the row is wrong.
 */
export function forContact(error: RowError): boolean {
  if (error.column !== undefined) return false;
  if (error.step === 'kyc') return !error.message.startsWith('waiting for ');
  if (error.step === 'payment-details') return error.message.startsWith('not sent: KYC rejected');
  return error.step === undefined && /^still waiting after \d+ days\b/.test(error.message);
}

/** `must be a valid e-mail address, got "aaa@a" (masked as personal data: ...)` -> `must be a valid e-mail address`. */
function withoutValue(message: string): string {
  return message.replace(QUOTED_VALUE, '');
}

/**
 * Drops what differs from row to row in a message: values it quotes, the row's own clientUserId, ids the server
 * echoes, line numbers and counts; so a line of the list never names one payer.
 */
export function normalise(message: string, clientUserId: string): string {
  const text = clientUserId === '' ? message : message.split(clientUserId).join('<id>');
  return text
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/(^|[\s(:=])'(?:[^'\\]|\\.)*'/g, "$1'…'")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b(lines?) \d+/g, '$1 N')
    .replace(/\b(has|is|after) \d+ (cells|characters|days)\b/g, '$1 N $2')
    .replace(/\bnumber cell of \d+ digits?\b/g, 'number cell of N digits')
    .replace(/ at column \d+$/, '')
    .replace(ACCOUNT_LABEL, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// Distinct groups kept while counting: bounds memory on a file where every message differs.
const MAX_GROUPS = 2000;
// Distinct errors whose kind is remembered: a file of invalid rows repeats a few problems on every row.
const MAX_KINDS = 10_000;
const OTHER: Kind = { where: 'row', problem: 'other problems' };

interface Tally extends Kind {
  rows: number;
  /** Rows by the formats that would read their date: `DD/MM/YYYY`, or `DD/MM/YYYY or MM/DD/YYYY`. */
  readings: Map<string, number>;
}

/** The rows to fix by column (or step) and kind of problem, each row counted once in each of its groups. */
export class FixGroups {
  private readonly groups = new Map<string, Tally>();
  /** The kind of each error met, by its place, message and whether its file is JSONL: what kindOf looks at. */
  private readonly kinds = new Map<string, Kind>();

  add(errors: readonly RowError[], source: string, clientUserId: string): void {
    const counted = new Set<Tally>();
    for (const error of errors) {
      // What a failed row also waits on (KYC, say) is not a fix: the links to send cover it; nor is a payer to contact.
      if (error.message.startsWith('waiting for ') || forContact(error)) continue;
      let kind = this.kindOf(error, source, clientUserId);
      let key = `${kind.where}\u0000${kind.problem}`;
      if (!this.groups.has(key) && this.groups.size >= MAX_GROUPS) {
        kind = OTHER;
        key = 'other';
      }
      let group = this.groups.get(key);
      if (group === undefined) {
        group = { ...kind, rows: 0, readings: new Map() };
        this.groups.set(key, group);
      }
      if (counted.has(group)) continue;
      counted.add(group);
      group.rows++;
      if (kind.dateFormats) group.readings.set(kind.dateFormats, (group.readings.get(kind.dateFormats) ?? 0) + 1);
    }
  }

  /**
   * kindOf, once for each distinct error: its regular expressions were a tenth of the time of a run whose every row
   * was invalid. A message naming the row's own clientUserId is worked out each time (its id is taken out of it).
   */
  private kindOf(error: RowError, source: string, clientUserId: string): Kind {
    if (clientUserId !== '' && error.message.includes(clientUserId)) return kindOf(error, source, clientUserId);
    const place = error.column === undefined ? `s${error.step ?? ''}` : `c${error.column}`;
    const key = `${place}\u0000${JSONL.test(source) ? 'jsonl' : ''}\u0000${error.message}`;
    let kind = this.kinds.get(key);
    if (kind === undefined) {
      kind = kindOf(error, source, '');
      if (this.kinds.size < MAX_KINDS) this.kinds.set(key, kind);
    }
    return kind;
  }

  /** Every group, most rows first, dates resolved to the one format that reads them where the rows tell. */
  list(): FixGroup[] {
    return [...this.groups.values()]
      .map(({ where, rows, problem, option, advice, readings }) =>
        readings.size > 0
          ? { where, rows, ...dateFix(readings) }
          : { where, rows, problem, ...(option ? { option } : {}), ...(advice ? { advice } : {}) },
      )
      .sort((a, b) => b.rows - a.rows || a.where.localeCompare(b.where) || a.problem.localeCompare(b.problem));
  }

  /**
   * The `--date-format` a next run can take so that every date to fix is read as written, when all the groups agree on
   * one; none when some group's rows do not tell their order, or two columns are written in different orders.
   */
  dateFormat(): string | undefined {
    const options = new Set(
      [...this.groups.values()].filter((g) => g.readings.size > 0).map((g) => dateFix(g.readings).option),
    );
    const [only] = options;
    return options.size === 1 ? only?.slice('--date-format '.length) : undefined;
  }
}

const orderOf = (format: string) => format.replace(/[./-]/g, '');

/**
 * What a group of dates written in another order needs. A date whose first number is over 12 is written day first,
 * so `05/06/1980` in the same column is too; where no row tells, or rows tell both orders, there is no safe option:
 * `DD/MM/YYYY` on a file written month first would swap day and month without a word.
 */
function dateFix(readings: ReadonlyMap<string, number>): Pick<FixGroup, 'problem' | 'option' | 'advice'> {
  const certain = [...readings].filter(([formats]) => !formats.includes(' or ')).sort((a, b) => b[1] - a[1]);
  const orders = new Set(certain.map(([format]) => orderOf(format)));
  const [order] = orders;
  if (orders.size === 1 && [...readings.keys()].every((f) => f.split(' or ').some((x) => orderOf(x) === order))) {
    const format = certain[0]![0];
    const problem = order!.startsWith('DD')
      ? 'day-first dates'
      : order!.startsWith('MM')
        ? 'month-first dates'
        : `dates written ${format}`;
    return { problem, option: `--date-format ${format}` };
  }
  if (orders.size === 0) {
    const [dayFirst, monthFirst] = [...readings.keys()][0]!.split(' or ');
    return {
      problem: 'dates written day or month first (no date here tells which)',
      advice: `use --date-format ${dayFirst} if the day comes first, --date-format ${monthFirst} if the month does`,
    };
  }
  return { problem: 'dates written in more than one order', advice: 'type them as YYYY-MM-DD' };
}
