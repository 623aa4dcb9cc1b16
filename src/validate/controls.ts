import { advice, type Readers } from '../core/advice.js';
import { type DateFormat, type RowOrigin, type Step, STEPS } from '../core/types.js';
import { fieldId } from '../rows/layout.js';
import { howDateReads, readDate } from './cellTexts.js';
import type { RowCells } from './rowCells.js';
import { type OrderedIssue, withValue, type Checked, quoteValue } from './textChecks.js';

/** What a row's control cells say; a blank or unreadable one leaves its part undefined (the caller's default applies). */
export interface RowControls {
  agreementCompleted?: boolean;
  completedSteps?: Step[];
  complianceDigest?: string;
  origin?: RowOrigin;
  issues: OrderedIssue[];
}

/**
 * How the row's dates read: `--date-format` beside YYYY-MM-DD, and the day a signature may not be after; and who reads
 * the messages, whose words the advice is in.
 */
export interface ControlReading {
  dateFormat?: DateFormat | undefined;
  today: string;
  readers?: Readers | undefined;
}

/** The control cells of a row. `error` is ignored: it is the tool's own note from an earlier run. */
export function readControls(row: RowCells, reading?: ControlReading): RowControls {
  const controls: RowControls = { issues: [] };
  if (row.has(AGREEMENT_COMPLETED)) {
    const text = row.text[AGREEMENT_COMPLETED]!;
    const parsed = parseAgreementCompleted(text, reading);
    if (parsed.ok) controls.agreementCompleted = parsed.value;
    else
      controls.issues.push({
        column: row.column(AGREEMENT_COMPLETED),
        message: withValue(parsed.message, 'agreementCompleted', text, reading?.readers),
        order: row.order(AGREEMENT_COMPLETED),
      });
  }
  if (row.has(COMPLETED_STEPS)) {
    const parsed = parseCompletedSteps(row.text[COMPLETED_STEPS]!);
    if (parsed.ok) {
      controls.completedSteps = parsed.value;
      if (parsed.complianceDigest !== undefined) controls.complianceDigest = parsed.complianceDigest;
      if (parsed.origin !== undefined) controls.origin = parsed.origin;
    } else {
      controls.issues.push({
        column: row.column(COMPLETED_STEPS),
        message: parsed.message,
        order: row.order(COMPLETED_STEPS),
      });
    }
  }
  return controls;
}

export const AGREEMENT_COMPLETED = fieldId('agreementCompleted');
const COMPLETED_STEPS = fieldId('completedSteps');

/** What a row carries from an earlier failed or pending file, present parts only (the row types' optional fields), onto its result. */
export function carry<T extends { completedSteps?: Step[]; complianceDigest?: string; origin?: RowOrigin }>(
  controls: RowControls,
  digest: boolean,
  result: T,
): T {
  // Assigned, not spread into a literal: a row's result is made for every row.
  if (controls.completedSteps !== undefined) result.completedSteps = controls.completedSteps;
  if (digest && controls.complianceDigest !== undefined) result.complianceDigest = controls.complianceDigest;
  if (controls.origin !== undefined) result.origin = controls.origin;
  return result;
}

// A tick in a checklist column is as much a "yes" as the word: `x`, as teams mark what they collected.
const TRUE = new Set(['true', 'yes', 'y', '1', 'x']);
const FALSE = new Set(['false', 'no', 'n', '0']);
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The `agreementCompleted` cell, in any case: true/yes/y/1/x, or the day the team collected the signature, say it was
 * signed; false/no/n/0 that it was not. A day is read as YYYY-MM-DD or in `--date-format`, and must be a real day
 * not after today: anything else could be a typo for a day the payer has not signed on. Blank is decided by the caller.
 */
function parseAgreementCompleted(
  text: string,
  reading: ControlReading | undefined,
): { ok: true; value: boolean } | Extract<Checked, { ok: false }> {
  const word = text.trim().toLowerCase();
  if (TRUE.has(word)) return { ok: true, value: true };
  if (FALSE.has(word)) return { ok: true, value: false };
  const day = ISO_DAY.test(word) ? word : reading?.dateFormat ? readDate(word, reading.dateFormat) : undefined;
  if (day !== undefined && realDay(day)) {
    if (reading !== undefined && day > reading.today)
      return { ok: false, message: 'is a day after today: the day the signature was collected cannot be yet' };
    return { ok: true, value: true };
  }
  const readers = reading?.readers ?? 'terminal';
  const how = reading?.dateFormat ? undefined : howDateReads(word);
  if (how !== undefined) return { ok: false, message: `is a day ${advice(how, readers)}` };
  const dates = reading?.dateFormat ? `YYYY-MM-DD or ${reading.dateFormat}` : advice({ kind: 'other-dates' }, readers);
  return {
    ok: false,
    message: `must say whether the team collected the payer's signature: true/yes/y/1/x or the day (${dates}), or false/no/n/0`,
  };
}

/** `2024-02-30` is no day. */
function realDay(iso: string): boolean {
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso;
}

/**
 * The `completedSteps` cell of a failed or pending file, written by the tool and read back when the file is fed in:
 * `compliance@3f9a1c;payment-details;from=payers.csv:12`. The steps a re-run skips, in call order; `@` after
 * compliance is a digest of the payer cells that were registered, so a payer cell fixed in the file is noticed even
 * without the journal; `from=` is where the row first came from, so results.csv keeps naming the original file and
 * line however often the row is fed back. One grammar for both directions, so what is written always reads back.
 */
export interface CompletedStepsCell {
  steps: readonly Step[];
  complianceDigest?: string | undefined;
  origin?: RowOrigin | undefined;
}

type ParsedCompletedSteps =
  | { ok: true; value: Step[]; complianceDigest?: string; origin?: RowOrigin }
  | { ok: false; message: string };

const ORIGIN_KEY = 'from';
const DIGEST = /^[0-9a-f]{6,64}$/;
// What would split the token or be misread when the cell is read back: separators, `=`, `%` itself, quotes and
// control characters. Anything else (accents, brackets of an xlsx sheet name) stays readable as typed.
const ENCODED = /[%;,=\s"\p{Cc}]/gu;

/** The cell's text. A digest is written only beside compliance: without the step it would mean nothing. */
export function formatCompletedSteps({ steps, complianceDigest, origin }: CompletedStepsCell): string {
  const words = STEPS.filter((step) => steps.includes(step)).map((step) =>
    step === 'compliance' && complianceDigest ? `${step}@${complianceDigest.toLowerCase()}` : step,
  );
  if (origin) words.push(`${ORIGIN_KEY}=${origin.source.replace(ENCODED, encodeURIComponent)}:${origin.line}`);
  return words.join(';');
}

/**
 * Reads the cell back. People edit these files by hand: `,` `;` and spaces separate, steps and keys are read in any
 * case, and spaces around `=` and `@` are forgiven. A word that is not understood is an error naming it, never dropped:
 * a dropped step would be sent again.
 */
function parseCompletedSteps(text: string): ParsedCompletedSteps {
  const words = text
    .replace(/\s*([=@])\s*/g, '$1')
    .split(/[;,\s]+/)
    .filter((word) => word !== '');
  const unknown: string[] = [];
  const problems: string[] = [];
  const steps = new Set<Step>();
  let complianceDigest: string | undefined;
  let origin: RowOrigin | undefined;

  for (const word of words) {
    const equals = word.indexOf('=');
    if (equals >= 0 && word.slice(0, equals).toLowerCase() === ORIGIN_KEY) {
      const read = readOrigin(word.slice(equals + 1));
      if (read === undefined) problems.push(`${quoteValue(word)} must be ${ORIGIN_KEY}=<file>:<line>`);
      else if (origin !== undefined && (origin.source !== read.source || origin.line !== read.line))
        problems.push(`names two origins (${ORIGIN_KEY}=)`);
      else origin = read;
      continue;
    }
    const at = word.indexOf('@');
    const name = (at >= 0 ? word.slice(0, at) : word).toLowerCase();
    const step = STEPS.find((s) => s === name);
    if (step === undefined) {
      unknown.push(word);
      continue;
    }
    steps.add(step);
    if (at < 0) continue;
    const digest = word.slice(at + 1).toLowerCase();
    if (step !== 'compliance') problems.push(`${quoteValue(word)}: only compliance carries a digest`);
    else if (!DIGEST.test(digest)) problems.push(`${quoteValue(word)}: the digest after @ must be hex digits`);
    else if (complianceDigest !== undefined && complianceDigest !== digest)
      problems.push('names two compliance digests');
    else complianceDigest = digest;
  }

  if (unknown.length > 0) {
    const names = unknown.map(quoteValue).join(', ');
    problems.unshift(`has unknown step${unknown.length > 1 ? 's' : ''} ${names} (steps are ${STEPS.join(', ')})`);
  }
  if (problems.length > 0) return { ok: false, message: problems.join('; ') };
  return {
    ok: true,
    value: STEPS.filter((step) => steps.has(step)),
    ...(complianceDigest === undefined ? {} : { complianceDigest }),
    ...(origin === undefined ? {} : { origin }),
  };
}

/** `payers.csv:12`, the file name percent-encoded where it had to be; the last `:` starts the line (names may hold one). */
function readOrigin(value: string): RowOrigin | undefined {
  const colon = value.lastIndexOf(':');
  if (colon <= 0 || !/^[1-9]\d{0,9}$/.test(value.slice(colon + 1))) return undefined;
  let source: string;
  try {
    source = decodeURIComponent(value.slice(0, colon));
  } catch {
    return undefined; // a stray `%` typed by hand
  }
  return { source, line: Number(value.slice(colon + 1)) };
}
