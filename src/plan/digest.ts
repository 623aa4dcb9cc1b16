import { createHash } from 'node:crypto';
import { canonicalJson } from '../execute/idempotencyKey.js';
import { PAYER_FIELDS } from '../rows/fields.js';
import type { ComplianceRequest } from '../schema/index.js';

// What was registered for a payer, remembered without keeping it: a short digest of the whole create-compliance
// body (carried in a failed or pending file's `completedSteps` as `compliance@3f9a1c`, and kept in the journal),
// and a two-character hash per field (journal only) so a changed row can name the columns that changed.

// The payer's fields in the schema's order: the per-field digests are read back by position.
const FIELD_ORDER = PAYER_FIELDS;

export function complianceDigest(body: ComplianceRequest): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex').slice(0, 6);
}

/** Two hex characters a field, in FIELD_ORDER. */
export function fieldDigests(body: ComplianceRequest): string {
  return FIELD_ORDER.map((field) =>
    createHash('sha256')
      .update(`${field}\u0000${body[field] ?? ''}`)
      .digest('hex')
      .slice(0, 2),
  ).join('');
}

/** The fields whose digest differs; empty when the earlier digests are unknown or of another shape. */
export function changedFields(before: string | undefined, body: ComplianceRequest): string[] {
  if (before === undefined || before.length !== FIELD_ORDER.length * 2) return [];
  const now = fieldDigests(body);
  return FIELD_ORDER.filter((_, i) => before.slice(2 * i, 2 * i + 2) !== now.slice(2 * i, 2 * i + 2));
}
