import type { IncomingMessage } from 'node:http';

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
