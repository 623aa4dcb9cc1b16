import type { ServerResponse } from 'node:http';

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
