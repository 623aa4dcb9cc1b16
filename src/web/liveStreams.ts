import type { EventEmitter } from 'node:events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** One open stream: what is written to it (nothing once it ended) and how it is ended from the server's side. */
export interface LiveStream {
  send(text: string): void;
  end(): void;
  readonly ended: boolean;
}

/**
 * The pages' server-sent events, one way for both pages: a stream that hears serve's `changes` (each `change` calls
 * `onChange`), keeps a quiet proxy from closing it, lets go of everything when the browser goes, and is ended at
 * serve's shutdown, which waits for open connections otherwise.
 */
export function liveStreams(app: FastifyInstance, changes: EventEmitter) {
  const streams = new Set<FastifyReply['raw']>();
  app.addHook('preClose', async () => {
    for (const res of streams) res.end();
  });
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    headers: Record<string, string>,
    onChange: (stream: LiveStream) => void,
  ): LiveStream => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', connection: 'keep-alive' });
    const stream: LiveStream = {
      // Nothing is written once the stream ended (a write then would be an error of the response).
      send: (text) => {
        if (!res.writableEnded && !res.destroyed) res.write(text);
      },
      end: () => res.end(),
      get ended() {
        return res.writableEnded;
      },
    };
    stream.send(': live\n\n');
    // A comment now and then keeps proxies from closing a quiet stream.
    const beat = setInterval(() => stream.send(': beat\n\n'), 25_000);
    const change = () => onChange(stream);
    changes.on('change', change);
    streams.add(res);
    request.raw.on('close', () => {
      clearInterval(beat);
      changes.off('change', change);
      streams.delete(res);
    });
    return stream;
  };
}
