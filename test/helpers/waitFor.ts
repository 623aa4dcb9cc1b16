/**
 * Polls `condition` until it holds, for a test that waits on something it cannot be told about directly (a
 * counter in the sandbox, a file in a folder, a child process's output). The deadline only ends a test that is
 * already broken: it is far past anything a passing test waits for, so a loaded machine does not reach it.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const { timeoutMs = 30_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A promise with its resolve handed out: the test settles it when the event it stands for happens. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
