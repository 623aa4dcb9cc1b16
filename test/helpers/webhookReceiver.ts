import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Attempt {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  /** What it was answered: a status, or `hang` (no answer until the sender gives up or the receiver closes). */
  answer: number | 'hang';
  /** performance.now() when its body had come. */
  at: number;
}

const opened: Server[] = [];

/**
 * A plain receiver on loopback port 0: answers the n-th attempt with `answers[n]` (then 200), keeps every attempt.
 * `closeReceivers()` in afterEach stops them.
 */
export async function receiver(answers: ReadonlyArray<number | 'hang'> = []) {
  const attempts: Attempt[] = [];
  const waiters: Array<{ done: () => boolean; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = answers[attempts.length] ?? 200;
      const raw = Buffer.concat(chunks).toString('utf8');
      attempts.push({ headers: req.headers, raw, body: JSON.parse(raw) as Record<string, unknown>, answer, at: now() });
      if (answer !== 'hang') res.writeHead(answer).end();
      for (const w of waiters.filter((w) => w.done())) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  opened.push(server);
  const accepted = () => attempts.filter((a) => a.answer === 200);
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      if (done()) resolve();
      else waiters.push({ done, resolve });
    });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    attempts,
    /** Resolves with the deliveries answered 200 once there are `count` of them. */
    received: async (count: number) => {
      await until(() => accepted().length >= count);
      return accepted();
    },
    /** Resolves once `count` attempts have come, whatever they were answered. */
    attempted: (count: number) => until(() => attempts.length >= count),
  };
}

export async function closeReceivers(): Promise<void> {
  await Promise.all(
    opened.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
}

const now = () => performance.now();
