// A real HTTP server on loopback port 0 whose answers each test scripts (got's create-http-test-server idea).
// It records every request (method, path, headers, parsed body, arrival time) and the most requests it had in flight.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Hit {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Date.now() when the request arrived. */
  at: number;
  /** 0-based index among all hits. */
  n: number;
}

export type Reply =
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  /** Destroy the socket without answering (the client sees ECONNRESET / socket hang up). */
  | { reset: true }
  /** Answer only after `ms` (longer than the client's timeout). */
  | { hang: number; status?: number; body?: unknown };

export type Script = (hit: Hit) => Reply | Promise<Reply>;

export interface ScriptedServer {
  /** Base URL with a trailing `/api/` prefix, so the client's prefixUrl joining is exercised. */
  url: string;
  hits: Hit[];
  /** Hits whose `${method} ${path}` matches. */
  hitsTo(method: string, pathPrefix: string): Hit[];
  maxInFlight: number;
  close(): Promise<void>;
}

const API_PREFIX = '/api';

export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const hits: Hit[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  const state = { maxInFlight: 0 };

  const server = createServer((req, res) => {
    inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        inFlight -= 1;
      }
    };
    res.on('close', finish);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        /* keep the text */
      }
      const path = (req.url ?? '').startsWith(API_PREFIX) ? (req.url ?? '').slice(API_PREFIX.length) : (req.url ?? '');
      const hit: Hit = { method: req.method ?? '', path, headers: req.headers, body, at: Date.now(), n: hits.length };
      hits.push(hit);
      void Promise.resolve(script(hit)).then((reply) => answer(res, reply, finish));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${API_PREFIX}`,
    hits,
    hitsTo: (method, pathPrefix) => hits.filter((h) => h.method === method && h.path.startsWith(pathPrefix)),
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(res: ServerResponse, reply: Reply, finish: () => void): void {
  if ('reset' in reply) {
    finish();
    res.socket?.destroy();
    return;
  }
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
    res.end(text);
  };
  if ('hang' in reply) {
    setTimeout(() => send(reply.status ?? 200, reply.body ?? {}), reply.hang);
    return;
  }
  if (reply.delayMs !== undefined && reply.delayMs > 0)
    setTimeout(() => send(reply.status, reply.body, reply.headers), reply.delayMs);
  else send(reply.status, reply.body, reply.headers);
}

/** Replies in order; the last one repeats. */
export function sequence(...replies: Reply[]): Script {
  let i = 0;
  return () => {
    const reply = replies[Math.min(i, replies.length - 1)];
    i += 1;
    if (reply === undefined) throw new Error('sequence() needs at least one reply');
    return reply;
  };
}

/** A NestJS-shaped error body. */
export function nestError(
  statusCode: number,
  message: string | string[],
  error = 'Error',
): { statusCode: number; message: string | string[]; error: string } {
  return { statusCode, message, error };
}

/** A compliance answer as the real API gives it. */
export function complianceAnswer(userId = '3f1c2b7a-4d5e-4f60-8a9b-0c1d2e3f4a5b') {
  return {
    status: { agreementStatus: 'not_started', kycStatus: 'not_started' },
    agreementUrl: `https://example.test/agreement/${userId}`,
    kycUrl: `https://example.test/kyc/${userId}`,
    userId,
  };
}
