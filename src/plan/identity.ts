import type { Step } from '../core/types.js';
import { hash } from 'node:crypto';
import { PAYER_FIELDS } from '../rows/fields.js';
import type { ComplianceRequest, PaymentDetailRequest, StoredPaymentDetail } from '../core/schemas.js';

// What was registered for a payer, remembered without keeping it: a short digest of the whole create-compliance
// body (carried in a failed or pending file's `completedSteps` as `compliance@3f9a1c`, and kept in the journal),
// and a two-character hash per field (journal only) so a changed row can name the columns that changed.

// The payer's fields in the schema's order: the per-field digests are read back by position.
const FIELD_ORDER = PAYER_FIELDS;

/** The digest of what was registered: the first six hex digits of the SHA-256 of the body's canonical JSON. */
export function complianceDigest(body: ComplianceRequest, text = canonicalJson(body)): string {
  return sha256(text).slice(0, 6);
}

/** The identity as canonical JSON: what names a bank account in the journal and among a run's rows. */
export function identityText(identity: AccountIdentity): string {
  return canonicalJson(identity);
}

/**
 * SHA-256 in hex, in one call: a hash object per digest (createHash, update, digest) costs several times more, and
 * a row takes a score of digests (its fields', its keys').
 */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * Marks field digests of the kind below. A journal written before holds SHA-256 ones of another length: they name
 * no columns (a changed payer is still found changed, by its whole digest), rather than name the wrong ones.
 */
const FIELD_DIGESTS = 'v2:';

/**
 * Two hex characters a field, in FIELD_ORDER, after FIELD_DIGESTS. Eight bits a field only tell which columns
 * changed, so a fast non-cryptographic hash (FNV-1a) does: a row registered takes one per field, and
 * a SHA-256 each cost more than the rest of the row's own work.
 */
export function fieldDigests(body: ComplianceRequest): string {
  let digests = FIELD_DIGESTS;
  for (const field of FIELD_ORDER) {
    // FNV-1a of `${field}\u0000${value}`, fed in three parts rather than joined first.
    let h = fnv1a(0x811c9dc5, field);
    h = Math.imul(h, 0x01000193); // the NUL between them
    h = fnv1a(h, String(body[field] ?? ''));
    digests += HEX_BYTE[(h ^ (h >>> 8) ^ (h >>> 16) ^ (h >>> 24)) & 0xff];
  }
  return digests;
}

function fnv1a(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

const HEX_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** The fields whose digest differs; empty when the earlier digests are unknown or of another kind. */
export function changedFields(before: string | undefined, body: ComplianceRequest): string[] {
  const length = FIELD_DIGESTS.length + FIELD_ORDER.length * 2;
  if (before === undefined || before.length !== length || !before.startsWith(FIELD_DIGESTS)) return [];
  const now = fieldDigests(body);
  return FIELD_ORDER.filter((_, i) => {
    const at = FIELD_DIGESTS.length + 2 * i;
    return before.slice(at, at + 2) !== now.slice(at, at + 2);
  });
}

// Whether a bank account the service already stores is the one a row describes. The service does not
// de-duplicate accounts and documents no idempotency, so before creating one the client looks at what is stored
// and adopts a match instead. A match is the same currency (any case) and the same account number or IBAN, with
// the routing number or sort code where both sides give one. The service may mask long numbers to their last
// four digits: then the last four are compared.

/** What makes a bank account the same account: never its holder's name or address, which a team may correct. */
export interface AccountIdentity {
  currency: string;
  accountNumber?: string;
  iban?: string;
  routingNumber?: string;
  sortCode?: string;
  /** Only when the row has no number at all: bank and holder name are then all there is to compare. */
  names?: string;
}

/** Made once per bank account of a row, with the row's work (the journal and the plan both read it); never changed. */
export function accountIdentity(detail: PaymentDetailRequest): AccountIdentity {
  const iban = alnum(detail.iban);
  const accountNumber = alnum(detail.accountNumber);
  const routingNumber = alnum(detail.routingNumber);
  const sortCode = alnum(detail.sortCode);
  // Members in the order of their names, so the identity is its own canonical JSON.
  const identity = {} as AccountIdentity;
  if (accountNumber) identity.accountNumber = accountNumber;
  identity.currency = detail.currency.toUpperCase();
  if (iban) identity.iban = iban;
  if (!iban && !accountNumber) identity.names = `${detail.bankName}\u0000${detail.accountName}`.toUpperCase();
  if (routingNumber) identity.routingNumber = routingNumber;
  if (sortCode) identity.sortCode = sortCode;
  return identity;
}

/** Whether `stored` is the account `identity` describes (whatever its status: see pickMatch for failed ones). */
export function sameAccount(identity: AccountIdentity, stored: StoredPaymentDetail): boolean {
  if (stored.currency !== undefined && stored.currency.toUpperCase() !== identity.currency) return false;
  if (identity.names !== undefined) {
    return (
      !alnum(stored.iban) &&
      !alnum(stored.accountNumber) &&
      `${stored.bankName ?? ''}\u0000${stored.accountName ?? ''}`.toUpperCase() === identity.names
    );
  }
  const number =
    identity.iban !== undefined
      ? sameNumber(identity.iban, stored.iban)
      : sameNumber(identity.accountNumber!, stored.accountNumber);
  if (!number) return false;
  // Routing numbers and sort codes are short enough to come back whole; compare them only when both sides have one.
  if (
    identity.routingNumber &&
    alnum(stored.routingNumber) &&
    !sameNumber(identity.routingNumber, stored.routingNumber)
  )
    return false;
  if (identity.sortCode && alnum(stored.sortCode) && !sameNumber(identity.sortCode, stored.sortCode)) return false;
  return true;
}

export type AccountMatch =
  | { kind: 'none' }
  | { kind: 'adopt'; id: string }
  /** The matching stored account failed the provider's check: never adopted, a new one is created. */
  | { kind: 'stored-failed'; id: string };

/**
 * The stored account a row adopts: the first match not already taken by another row of this run (one stored
 * account answers for one row at most) and not marked `failed` by the provider.
 */
export function pickMatch(
  identity: AccountIdentity,
  stored: readonly StoredPaymentDetail[],
  taken: ReadonlySet<string>,
): AccountMatch {
  let failed: string | undefined;
  for (const account of stored) {
    if (taken.has(account.id) || !sameAccount(identity, account)) continue;
    if (account.status?.toLowerCase() === 'failed') {
      failed ??= account.id;
      continue;
    }
    return { kind: 'adopt', id: account.id };
  }
  return failed === undefined ? { kind: 'none' } : { kind: 'stored-failed', id: failed };
}

function alnum(value: string | null | undefined): string {
  // Most rows leave most of these empty.
  if (!value) return '';
  return value.replace(/[^0-9a-zA-Z]/g, '').toUpperCase();
}

/** Equal, or equal in the last four when the service sent only those (masked as `6789`, `****6789`, `XXXX6789`). */
function sameNumber(ours: string, theirs: string | null | undefined): boolean {
  const raw = theirs ?? '';
  const masked = /[*•xX]{2,}/.test(raw) || (alnum(raw).length <= 4 && ours.length > 4);
  const digits = masked ? alnum(raw.replace(/[*•]/g, '').replace(/^[xX]+/, '')) : alnum(raw);
  if (digits === '') return false;
  return masked ? ours.endsWith(digits.slice(-4)) && digits.length >= Math.min(4, ours.length) : digits === ours;
}

/**
 * The `Idempotency-Key` of a create call: derived from the step, the payer and the exact body, so it is
 * the same on every retry and on every re-run of the same row, and changes when the row is corrected.
 * A hash, so it carries no personal value itself. Sent as a courtesy to a service that honours it; the real one
 * ignores it, and nothing here depends on it: the journal and the reads keep creates to once. `text`: the body's
 * canonical JSON, when the caller has it already.
 */
export function idempotencyKey(step: Step, clientUserId: string, body: unknown, text = canonicalJson(body)): string {
  return `po-${sha256(`${step}\u0000${clientUserId}\u0000${text}`)}`;
}

/**
 * `flat`: no member is an object and no key is an array index (which an object keeps first, whatever the order);
 * `in order` besides: the keys come in the order of their names. Undefined for anything else.
 */
function flatness(record: Record<string, unknown>, keys: readonly string[]): 'in order' | 'flat' | undefined {
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const member = record[key];
    if ((typeof member === 'object' && member !== null) || isIndex(key)) return undefined;
    if (i > 0 && !(keys[i - 1]! < key)) inOrder = false;
  }
  return inOrder ? 'in order' : 'flat';
}

function isIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(0|[1-9]\d*)$/.test(key);
}

/** JSON with object keys sorted at every level; `undefined` members are left out as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  // Built in one pass over the sorted keys: every row is hashed several times, so no arrays of entries per call.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const flat = flatness(record, keys);
  // An account identity is built with its members in the order of their names: it is its own canonical JSON.
  if (flat === 'in order') return JSON.stringify(record);
  keys.sort();
  if (flat === 'flat') {
    // A request body, its members in the schema's order. Copied in key order, it is what JSON.stringify writes
    // natively, on its fast path (a key list as replacer takes its slow one).
    const sorted: Record<string, unknown> = {};
    for (const key of keys) sorted[key] = record[key];
    return JSON.stringify(sorted);
  }
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}
