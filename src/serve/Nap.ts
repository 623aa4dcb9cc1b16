/**
 * A loop's wait between two passes: it ends after its time, when the signal aborts, or (a wakeable one) when
 * something new comes and `wake()` is called. serve's loops (the worker's, the mails') each hold one.
 */
export class Nap {
  private wakeUp: (() => void) | undefined;

  /** Ends the wait under way, if it is a wakeable one. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Waits `ms`, or less when the signal aborts or (when `wakeable`) `wake()` is called. */
  sleep(ms: number, signal: AbortSignal, wakeable = true): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      if (wakeable) this.wakeUp = done;
    });
  }
}
