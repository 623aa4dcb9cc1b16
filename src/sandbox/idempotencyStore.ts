import { createHash } from 'node:crypto';
import type { Answer } from './payerStore.js';

// Idempotency-Key handling, as idempotent payment APIs do it (the real Payer API documents none):
// - the key is scoped to method + path, so one key on two routes means two operations;
// - only answers of operations that changed something (2xx) are remembered; a 404 or 409 did nothing,
//   so running it again is harmless and lets a retry succeed once the cause is fixed;
// - the answer is remembered in the same step as the change, before it is sent: when the answer is
//   lost (commit-then-500, slow answer, reset), a retry with the key gets the success, not a duplicate;
// - the same key with a different body is a client bug and gets 422 rather than a silent replay.

interface Remembered extends Answer {
  fingerprint: string;
}

export type Lookup = { kind: 'miss' } | { kind: 'replay'; answer: Answer } | { kind: 'mismatch' };

export class IdempotencyStore {
  private answers = new Map<string, Remembered>();

  lookup(scope: string, key: string, bodyText: string): Lookup {
    const found = this.answers.get(`${scope}\n${key}`);
    if (found === undefined) return { kind: 'miss' };
    if (found.fingerprint !== fingerprint(bodyText)) return { kind: 'mismatch' };
    return { kind: 'replay', answer: { status: found.status, body: found.body } };
  }

  remember(scope: string, key: string, bodyText: string, answer: Answer): void {
    if (answer.status < 200 || answer.status > 299) return;
    this.answers.set(`${scope}\n${key}`, { ...answer, fingerprint: fingerprint(bodyText) });
  }

  clear(): void {
    this.answers.clear();
  }
}

function fingerprint(bodyText: string): string {
  return createHash('sha256').update(bodyText).digest('base64url');
}
