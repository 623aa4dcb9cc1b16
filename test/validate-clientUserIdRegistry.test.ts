import { describe, expect, test } from 'vitest';
import { createClientUserIdRegistry, duplicateClientUserIdIssue } from '../src/validate/clientUserIdRegistry.js';

describe('clientUserId registry', () => {
  test('the first sighting is remembered, later ones get its place', () => {
    const registry = createClientUserIdRegistry();
    expect(registry.seen('p-1', 'payers.csv line 2')).toBeUndefined();
    expect(registry.seen('p-2', 'payers.csv line 3')).toBeUndefined();
    expect(registry.seen('p-1', 'payers.csv line 9')).toBe('payers.csv line 2');
    expect(registry.seen('p-1', 'more.jsonl line 1')).toBe('payers.csv line 2');
  });

  test('ids compare exactly', () => {
    const registry = createClientUserIdRegistry();
    registry.seen('P-1', 'a line 2');
    expect(registry.seen('p-1', 'a line 3')).toBeUndefined();
  });

  test('the issue names the earlier place', () => {
    expect(duplicateClientUserIdIssue('Client ID', 'payers.csv line 2')).toEqual({
      column: 'Client ID',
      message: 'is already used on payers.csv line 2',
    });
  });
});
