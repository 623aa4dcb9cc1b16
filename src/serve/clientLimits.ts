import type { Socket } from 'node:net';
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { clientKey } from '../core/clientKey.js';
import type { TrustedProxy } from '../options/serveOptions.js';

// One client must not be able to starve the others: the service's deliveries have 5 s each, and a sender that opens
// hundreds of connections and dribbles its headers would otherwise hold every slot the server has. Connections are
// counted by the peer's address; requests by the client's, which behind a trusted proxy is the one it forwards.

/** Connections one address may hold open at once; the next is closed as it comes (a proxy we trust is not capped). */
export const CONNECTIONS_PER_ADDRESS = 64;
/** Connections the server holds open at once, from everyone. */
const CONNECTIONS_IN_ALL = 1024;
/** Requests one client may have unanswered at once: behind a proxy, its connections are the proxy's. */
export const REQUESTS_PER_CLIENT = 64;

export type Limit = 'connections-per-address' | 'connections' | 'requests-per-client';

interface Peer {
  key: string;
  /** Requests of this connection not yet answered. */
  busy: number;
}

/**
 * The connection caps, enforced as each connection comes. An idle kept-alive connection (it was answered and waits
 * for the next request) is closed to make room before a new one is refused: a sender that opens a connection per
 * delivery and never closes it is never turned away for its own leftovers. A connection that has not yet sent a whole
 * request is never closed for room: it is what a slow sender holds, and it is what the caps count.
 */
export function limitConnections(server: Server, trusted: TrustedProxy | undefined, refused: (limit: Limit) => void) {
  const peers = new Map<Socket, Peer>();
  /** Open connections by client. */
  const open = new Map<string, number>();
  // Only a connection answered and waiting for its next request; insertion order is the order they went idle.
  const idle = new Set<Socket>();
  /** Closes the connection idle longest (of one client's, when `key` is given); whether there was one. */
  const makeRoom = (key?: string): boolean => {
    for (const socket of idle) {
      if (key !== undefined && peers.get(socket)?.key !== key) continue;
      socket.destroy();
      forget(socket);
      return true;
    }
    return false;
  };
  const forget = (socket: Socket) => {
    const peer = peers.get(socket);
    if (peer === undefined) return;
    peers.delete(socket);
    idle.delete(socket);
    const left = (open.get(peer.key) ?? 1) - 1;
    if (left === 0) open.delete(peer.key);
    else open.set(peer.key, left);
  };
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = clientKey(address);
    const capped = trusted === undefined || !trusted(address, 0);
    if (capped && (open.get(key) ?? 0) >= CONNECTIONS_PER_ADDRESS && !makeRoom(key)) {
      refused('connections-per-address');
      socket.destroy();
      return;
    }
    if (peers.size >= CONNECTIONS_IN_ALL && !makeRoom()) {
      refused('connections');
      socket.destroy();
      return;
    }
    peers.set(socket, { key, busy: 0 });
    open.set(key, (open.get(key) ?? 0) + 1);
    socket.once('close', () => forget(socket));
  });
  server.on('request', (request, response) => {
    const socket = request.socket as Socket;
    const peer = peers.get(socket);
    if (peer === undefined) return;
    peer.busy += 1;
    idle.delete(socket);
    response.once('close', () => {
      peer.busy -= 1;
      if (peer.busy === 0 && peers.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
}

/**
 * Requests unanswered per client (`request.ip`: the forwarded client behind a trusted proxy, else the peer): past the
 * cap, a request is answered 429 at once and its connection closed.
 */
export function limitRequests(app: FastifyInstance, refused: (limit: Limit) => void): void {
  const open = new Map<string, number>();
  app.addHook('onRequest', async (request, reply) => {
    const key = clientKey(request.ip ?? '');
    const count = open.get(key) ?? 0;
    if (count >= REQUESTS_PER_CLIENT) {
      refused('requests-per-client');
      return reply
        .code(429)
        .header('connection', 'close')
        .header('retry-after', '1')
        .send({ error: 'too many requests from one address at once' });
    }
    open.set(key, count + 1);
    reply.raw.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
