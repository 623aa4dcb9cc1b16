/** HTTP statuses worth another attempt (design.md §6). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** Network failures worth another attempt: the connection broke, was refused, or the name did not resolve for now. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'EADDRINUSE',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

export interface RequestFailure {
  kind: 'network' | 'timeout';
  /** `ECONNRESET`, `ETIMEDOUT`, ... */
  code: string;
  retryable: boolean;
}

/** What a got error that came without a usable response means for the retry loop. */
export function classifyRequestError(error: unknown): RequestFailure {
  const name = error instanceof Error ? error.name : '';
  const code = errorCode(error) ?? (name === '' ? 'ERR_UNKNOWN' : name);
  if (name === 'TimeoutError') return { kind: 'timeout', code, retryable: true };
  // A response cut off mid-body (got's ReadError) is a broken connection, whatever its code.
  return { kind: 'network', code, retryable: RETRYABLE_CODES.has(code) || name === 'ReadError' };
}

function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code !== 'ERR_GOT_REQUEST_ERROR' ? code : undefined;
}
