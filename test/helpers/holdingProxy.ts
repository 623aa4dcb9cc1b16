import { createServer, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { deferred } from './waitFor.js';

export interface HoldingProxy {
  /** Base URL to give the client instead of the target's. */
  url: string;
  /** Whether the request to hold has come (and been forwarded). */
  holding(): boolean;
  /** Hands the held answer on. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of `target` (a sandbox) that forwards every request at once, but keeps the answer to
 * the first one `hold` picks until the test calls release(): a call the server has acted on and whose answer
 * comes exactly when the test says, not after a fixed delay.
 */
export async function startHoldingProxy(
  target: string,
  hold: (method: string, path: string) => boolean,
): Promise<HoldingProxy> {
  const released = deferred();
  let held = false;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const keep = !held && hold(req.method ?? '', req.url ?? '');
    if (keep) held = true;
    const upstream = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        const pass = () => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        };
        if (keep) void released.promise.then(pass);
        else pass();
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    holding: () => held,
    release: () => released.resolve(),
    close: async () => {
      released.resolve();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
