import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { RunOptions } from '../options.js';
import { checkBaseUrl } from './checkBaseUrl.js';

/**
 * Where to send and with which key, every problem reported at once (exit 2, nothing sent). The key comes from
 * PAYER_API_KEY or --api-key-file, never a flag value (shell history, ps).
 */
export function resolveConnection(
  options: RunOptions,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { baseUrl: string; apiKey: string } {
  if (options.sandbox) {
    // A rehearsal: the in-process sandbox gets a fresh key, so no real key is ever needed or sent.
    return { baseUrl: '', apiKey: `sandbox-${randomBytes(12).toString('hex')}` };
  }
  const problems: string[] = [];
  if (!options.baseUrl) problems.push('--base-url: required (or PAYER_API_BASE_URL), unless --sandbox');
  let apiKey = options.apiKey;
  if (apiKey === undefined && options.apiKeyFile !== undefined) {
    try {
      apiKey = readFileSync(resolve(cwd, options.apiKeyFile), 'utf8').trim();
    } catch (error) {
      problems.push(`--api-key-file: cannot read ${options.apiKeyFile} (${(error as NodeJS.ErrnoException).code})`);
    }
    if (apiKey === '') problems.push(`--api-key-file: ${options.apiKeyFile} is empty`);
  }
  apiKey ??= env.PAYER_API_KEY || undefined;
  if (apiKey === undefined && !problems.some((p) => p.startsWith('--api-key-file'))) {
    problems.push('API key: set PAYER_API_KEY or give --api-key-file FILE (or use --sandbox / --dry-run)');
  }
  if (options.baseUrl) {
    const problem = checkBaseUrl(options.baseUrl, options.allowHttp);
    if (problem) problems.push(`--base-url: ${problem}`);
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return { baseUrl: options.baseUrl!, apiKey: apiKey! };
}
