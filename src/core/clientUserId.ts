import { PayerOnboardError } from './errors.js';

// A clientUserId is one segment of the API's paths (`v2/payer/{clientUserId}/payment-details`). encodeURIComponent
// leaves `.` and `..` as they are, and a URL resolves them: `v2/payer/..` is `v2/`, so a bank account's data would go
// to `POST v2/payment-details`. Characters nobody can see (controls, bidirectional overrides, zero-width ones) make
// an id that looks like another in every file and message. Validation refuses both; the path builder refuses again,
// for a caller that got past validation.

/**
 * Controls (C0, DEL, C1: `\p{Cc}`), invisible format characters (`\p{Cf}`: zero-width ones, the BOM, bidirectional
 * embeddings, overrides and isolates) and the line and paragraph separators.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;

/** U+202E, as people look such a character up. */
function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What makes `id` unusable as a payer's path segment, described without the character itself; undefined if usable. */
export function clientUserIdProblem(id: string): string | undefined {
  if (id === '') return 'must not be empty';
  if (id === '.' || id === '..')
    return 'must not be "." or "..": a URL drops such a path segment, and the call goes elsewhere';
  const found = INVISIBLE.exec(id);
  if (found === null) return undefined;
  const char = found[0];
  const at = codePoint(char);
  if (/\p{Cc}/u.test(char)) return `contains a control character (${at})`;
  if (BIDI.test(char)) return `contains an invisible bidirectional text control (${at}) that reorders what is shown`;
  if (char === '\u2028' || char === '\u2029') return `contains a line or paragraph separator (${at})`;
  return `contains an invisible format character (${at})`;
}

/** `text` with every invisible character written as `\u{202E}`: for a message or a file a person reads. */
export function showInvisible(text: string): string {
  return INVISIBLE.test(text) ? text.replace(INVISIBLE_ALL, (char) => `\\u{${codePoint(char).slice(2)}}`) : text;
}

/** A path the API does not have: the call is refused before anything is sent. */
export class RouteError extends PayerOnboardError {
  constructor(
    readonly clientUserId: string,
    problem: string,
  ) {
    super('E_API', `not sent: clientUserId ${JSON.stringify(showInvisible(clientUserId))} ${problem}`, 1);
  }
}

// What a URL parser takes for a dot segment once encoded (WHATWG reads `%2e` as `.`); encodeURIComponent escapes `%`,
// so only a literal dot gets here, but the check is on what goes out, whatever made it.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** `id` as one path segment: encoded, and refused (RouteError) when the URL would not end up at the payer's route. */
export function pathSegment(id: string): string {
  const problem = clientUserIdProblem(id);
  if (problem !== undefined) throw new RouteError(id, problem);
  const segment = encodeURIComponent(id);
  if (segment === '' || DOT_SEGMENT.test(segment) || /[/\\?#]/.test(segment))
    throw new RouteError(id, 'is not one segment of a URL path once encoded');
  return segment;
}
