import { createHash } from 'node:crypto';
import { join } from 'node:path';

/**
 * The folder of one API's journal inside the state dir: one per base URL, so a rehearsal against the sandbox
 * never makes a real run think its payers exist. Named by host for people and by a hash for uniqueness.
 */
export function journalDir(stateDir: string, baseUrl: string): string {
  const normalized = baseUrl.replace(/\/+$/, '');
  let host = 'api';
  try {
    host = new URL(normalized).host.replace(/[^a-zA-Z0-9.-]/g, '_');
  } catch {
    // checked earlier; the hash alone still keeps journals apart
  }
  const hash = createHash('sha256').update(normalized).digest('hex').slice(0, 12);
  return join(stateDir, `${host}-${hash}`);
}
