import type { FileOutcome } from './processFile.js';

// Apart from processFile.ts so that a command's `--help` loads no run machinery to print it.

/** A file's outcome as one line of `--json`: its place, exit code, reason, results folder and run summary. */
export function outcomeLine(o: FileOutcome): string {
  const { file, folder, path, exitCode, reason, results, summary } = o;
  return `${JSON.stringify({ file, folder, path, exitCode, reason, results, summary })}\n`;
}
