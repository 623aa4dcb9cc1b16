import type { z } from 'zod';
import type { OrderedIssue } from './cellTexts.js';

/**
 * Issues from the spec's own schema run over a body the client's rules already passed. The client's rules pipe
 * into the spec's, so this should never fire; if it does, the row still fails with a message rather than
 * a request the API would refuse. Values are not echoed: which field it is cannot be trusted to be harmless.
 */
export function guardIssues(error: z.ZodError, columnOf: (field: string) => string): OrderedIssue[] {
  return error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    return {
      column: columnOf(field),
      message: `does not pass the API's schema: ${issue.message}`,
      order: Number.MAX_SAFE_INTEGER,
    };
  });
}
