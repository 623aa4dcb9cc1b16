import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';

// Reads a request body with a size cap. An oversized body is still drained (up to a hard ceiling) so
// the client is not cut off mid-upload and can read the 413; past the ceiling the caller closes the
// connection after answering rather than reading forever.

export type BodyResult = { kind: 'ok'; text: string } | { kind: 'too-large'; drained: boolean } | { kind: 'aborted' };

const DRAIN_CEILING = 64 * 1024 * 1024;

export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > DRAIN_CEILING) {
      resolve({ kind: 'too-large', drained: false });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (tooLarge) {
        chunks.length = 0;
        if (size > DRAIN_CEILING) {
          req.removeAllListeners('data');
          req.pause();
          resolve({ kind: 'too-large', drained: false });
        }
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(
        tooLarge ? { kind: 'too-large', drained: true } : { kind: 'ok', text: Buffer.concat(chunks).toString('utf8') },
      ),
    );
    req.on('error', () => resolve({ kind: 'aborted' }));
    // After 'end' this is a no-op (a promise settles once); before it, the client went away.
    req.on('close', () => resolve({ kind: 'aborted' }));
  });
}

// Writes one answer: objects as JSON, strings as text. A response whose client has gone (reset,
// timed out) is skipped silently: there is nobody to answer.

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): boolean {
  if (res.headersSent || res.destroyed) return false;
  const isText = typeof body === 'string';
  const payload = isText ? body : JSON.stringify(body ?? {});
  res.writeHead(status, {
    'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
  return true;
}

// Error bodies in the shape the real API (NestJS) uses: { statusCode, message, error }.

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface NestErrorBody {
  statusCode: number;
  message: string | string[];
  error?: string;
}

function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

export function nestError(status: number, message?: string | string[]): NestErrorBody {
  // NestJS answers an unhandled exception with exactly this, without `error`.
  if (status === 500 && message === undefined) return { statusCode: 500, message: 'Internal server error' };
  return { statusCode: status, message: message ?? reasonPhrase(status), error: reasonPhrase(status) };
}

/** The body NestJS's ThrottlerGuard sends with a 429. */
export const throttled = (): NestErrorBody => nestError(429, 'ThrottlerException: Too Many Requests');

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
