import { createHash } from 'node:crypto';
import { join } from 'node:path';

/**
 * The folder of one API's journal inside the state dir: one per base URL and key, so a rehearsal against a sandbox
 * never makes a real run think its payers exist (the real service's sandbox is a setting of the key, on the same
 * host). Named by host for people and by a hash for uniqueness. A new key starts a new journal: the reads of what
 * the service stores keep that safe, at a read a row.
 */
export function journalDir(stateDir: string, baseUrl: string, apiKey: string): string {
  const normalized = baseUrl.replace(/\/+$/, '');
  let host = 'api';
  try {
    host = new URL(normalized).host.replace(/[^a-zA-Z0-9.-]/g, '_');
  } catch {
    // checked earlier; the hash alone still keeps journals apart
  }
  const keyHash = createHash('sha256').update(apiKey).digest('hex');
  const hash = createHash('sha256').update(`${normalized}\u0000${keyHash}`).digest('hex').slice(0, 12);
  return join(stateDir, `${host}-${hash}`);
}
