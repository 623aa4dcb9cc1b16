import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { RunOptions } from './resolve.js';

/**
 * The base URL must be https, or plain http only to this machine (the sandbox) or with --allow-http:
 * the key and personal data would otherwise cross the network in the clear.
 * Returns the problem, or undefined when the URL is fine.
 */
function checkBaseUrl(value: string, allowHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL (expected e.g. https://api.example.com)`;
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  // The API's paths carry their version (`v1/payer`, `v2/payer/...`): a root that ends in one would send `/v1/v1/payer`.
  const version = /\/(v\d+)\/*$/i.exec(url.pathname);
  if (version) {
    const root = `${url.origin}${url.pathname.slice(0, version.index) || ''}`;
    return `ends in /${version[1]}, but the API's paths already start with their version: use ${root}`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `unsupported protocol "${url.protocol}": use https://`;
  if (allowHttp || isLoopbackHost(url.hostname)) return undefined;
  return `plain http:// to ${url.hostname} would send the key and personal data unencrypted: use https:// (or --allow-http if you really mean it)`;
}

/** Whether a URL's host is this machine's: the one place plain http is fine. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * The PostgreSQL database to keep the store in, from --database-url-file or PAYER_ONBOARD_DATABASE_URL (never a flag
 * value: it holds a password); none for the embedded store in the state dir.
 */
export function resolveDatabaseUrl(options: RunOptions, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (options.databaseUrlFile !== undefined) return readSecretFile(options.databaseUrlFile, '--database-url-file', cwd);
  return env.PAYER_ONBOARD_DATABASE_URL || undefined;
}

/**
 * A secret from the file a flag names (a database URL, a webhook secret, a password): never a flag's own value, which
 * shell history and `ps` keep. One that cannot be read, or is blank, is refused naming the flag (exit 2).
 */
export function readSecretFile(file: string, flag: string, cwd: string): string {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`, 'E_USAGE');
  }
  if (text === '') throw new ConfigError(`${flag}: ${file} is empty`, 'E_USAGE');
  return text;
}

/** Where to send, with which key, and what to say of the key if the service rejects it. */
interface Connection {
  baseUrl: string;
  apiKey: string;
  /** Where the key came from and how to give another: said once, when the service rejects it (401, 403). */
  keyAdvice: string;
}

/**
 * Where to send and with which key, every problem reported at once (exit 2, nothing sent). The key comes from
 * PAYER_API_KEY or --api-key-file, never a flag value (shell history, ps).
 */
export function resolveConnection(options: RunOptions, env: NodeJS.ProcessEnv, cwd: string): Connection {
  if (options.sandbox) {
    // A rehearsal: the in-process sandbox gets a fresh key, so no real key is ever needed or sent.
    return {
      baseUrl: '',
      apiKey: `sandbox-${randomBytes(12).toString('hex')}`,
      keyAdvice: "the key is the built-in sandbox's own (--sandbox), which it never refuses: please report this",
    };
  }
  const problems: string[] = [];
  let apiKey = options.apiKey;
  const accepts = `a key ${options.baseUrl?.replace(/\/+$/, '') ?? 'the service'} accepts`;
  let keyAdvice = `the key came from the apiKey option: give ${accepts}`;
  if (apiKey === undefined && options.apiKeyFile !== undefined) {
    keyAdvice = `the key came from --api-key-file ${options.apiKeyFile}: put ${accepts} in that file`;
    try {
      apiKey = readFileSync(resolve(cwd, options.apiKeyFile), 'utf8').trim();
    } catch (error) {
      problems.push(`--api-key-file: cannot read ${options.apiKeyFile} (${(error as NodeJS.ErrnoException).code})`);
    }
    if (apiKey === '') problems.push(`--api-key-file: ${options.apiKeyFile} is empty`);
  }
  if (apiKey === undefined && env.PAYER_API_KEY) {
    apiKey = env.PAYER_API_KEY;
    keyAdvice = `the key came from PAYER_API_KEY: set it to ${accepts}, or put that key in a file and give --api-key-file FILE`;
  }
  const noKey = apiKey === undefined && !problems.some((p) => p.startsWith('--api-key-file'));
  // What a newcomer meets first: one sentence naming what is missing and how to give it, or to rehearse without.
  const rehearse = 'or add --sandbox to try it against a built-in stand-in of the service first';
  if (!options.baseUrl && noKey)
    problems.push(
      `talking to the API needs its address and your API key: set PAYER_API_BASE_URL and PAYER_API_KEY (or give --base-url URL and --api-key-file FILE), ${rehearse}`,
    );
  else if (!options.baseUrl)
    problems.push(`no API address given: add --base-url https://... or set PAYER_API_BASE_URL, ${rehearse}`);
  else if (noKey)
    problems.push(
      `no API key found: set PAYER_API_KEY, or put the key in a file and give --api-key-file FILE, ${rehearse}`,
    );
  if (options.baseUrl) {
    const problem = checkBaseUrl(options.baseUrl, options.allowHttp);
    if (problem) problems.push(`--base-url: ${problem}`);
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return { baseUrl: options.baseUrl!, apiKey: apiKey!, keyAdvice };
}
