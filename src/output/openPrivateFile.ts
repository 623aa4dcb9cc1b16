import { createWriteStream, chmodSync, openSync, type WriteStream } from 'node:fs';

/**
 * Creates (or truncates) a file only its owner can read: results and failed rows hold personal data.
 * The mode is forced after opening too, because `mode` is ignored when the file already existed.
 */
export function openPrivateFile(path: string): WriteStream {
  const fd = openSync(path, 'w', 0o600);
  chmodSync(path, 0o600);
  return createWriteStream(path, { fd, encoding: 'utf8' });
}

/** Ends a stream and waits until everything is on disk. */
export function finish(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.end(() => resolve());
  });
}
