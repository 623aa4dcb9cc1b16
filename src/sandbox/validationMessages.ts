import type { z } from 'zod';

// Turns zod issues into the class-validator-style messages a NestJS API sends (`email must be a valid
// e-mail address`), one per problem, each naming the field. Messages are built from the issue's kind
// and the schema's own wording, never from the received value: ssn, accountNumber, iban and the like
// must not come back in an error.

export function validationMessages(issues: readonly z.core.$ZodIssue[], body: unknown): string[] {
  const messages = issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    if (field === '') return 'request body must be a JSON object';
    switch (issue.code) {
      case 'invalid_type':
        // Missing and wrongly typed fields read differently; the spec's one known example is
        // `agreementCompleted must be provided`.
        if (valueAt(body, issue.path) === undefined) return `${field} must be provided`;
        return issue.expected === 'boolean'
          ? `${field} must be a boolean value`
          : `${field} must be a ${issue.expected}`;
      case 'invalid_value':
        return `${field} must be one of the following values: ${issue.values.map(String).join(', ')}`;
      case 'too_small':
      case 'too_big':
      case 'invalid_format':
      case 'custom':
        // The shared schemas word these for people ("must be exactly 2 characters").
        return `${field} ${issue.message}`;
      default:
        return `${field} is invalid`;
    }
  });
  return [...new Set(messages)];
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = body;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
