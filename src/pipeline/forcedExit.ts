/**
 * What must be given up before the process exits at once (a second SIGINT/SIGTERM). Kept apart from log.ts so the
 * bin can call it without loading pino for every command.
 */
const steps = new Set<() => void>();

/** Registers `step` to run before a forced exit; the returned function unregisters it. */
export function beforeForcedExit(step: () => void): () => void {
  steps.add(step);
  return () => steps.delete(step);
}

/** Runs every registered step; one that throws does not stop the others, nor the exit. */
export function prepareForcedExit(): void {
  for (const step of steps) {
    try {
      step();
    } catch {
      // The process is leaving anyway.
    }
  }
  steps.clear();
}
