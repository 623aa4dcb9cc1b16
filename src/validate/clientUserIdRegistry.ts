import type { RowIssue } from '../types.js';

/**
 * Remembers where each `clientUserId` of a run was first seen (design.md §3: the later of two payer rows with the
 * same id is invalid, naming the earlier line). The caller owns it because only the caller knows files and lines.
 * Ids are compared exactly: the API treats them as opaque strings.
 */
export function createClientUserIdRegistry(): {
  /** The place (`payers.csv line 3`) of an earlier row with this id, or undefined after remembering this one. */
  seen(clientUserId: string, where: string): string | undefined;
} {
  const firstSeen = new Map<string, string>();
  return {
    seen(clientUserId, where) {
      const earlier = firstSeen.get(clientUserId);
      if (earlier === undefined) firstSeen.set(clientUserId, where);
      return earlier;
    },
  };
}

/** The issue for a repeated `clientUserId`, under the user's column: `Client ID: is already used on payers.csv line 3`. */
export function duplicateClientUserIdIssue(column: string, earlier: string): RowIssue {
  return { column, message: `is already used on ${earlier}` };
}
