import { createHash } from 'node:crypto';
import type { Step } from '../types.js';

/**
 * The `Idempotency-Key` of a create call: derived from the step, the payer and the exact body, so it is
 * the same on every retry and on every re-run of the same row, and changes when the row is corrected.
 * A hash, so it carries no personal value itself. Sent as a courtesy to a service that honours it; the real one
 * ignores it, and nothing here depends on it: the journal and the reads keep creates to once.
 */
export function idempotencyKey(step: Step, clientUserId: string, body: unknown): string {
  const hash = createHash('sha256');
  hash.update(step);
  hash.update('\u0000');
  hash.update(clientUserId);
  hash.update('\u0000');
  hash.update(canonicalJson(body));
  return `po-${hash.digest('hex')}`;
}

/** JSON with object keys sorted at every level; `undefined` members are left out as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
