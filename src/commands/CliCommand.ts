import type { Argv } from 'yargs';

/** Where a command writes: the process's streams in the bin, buffers in tests. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM (the bin wires the signals; tests abort it themselves). */
  signal: AbortSignal;
}

/**
 * What a subcommand does: its yargs options and a handler that returns the exit code (never calls process.exit).
 * Its name and one-line description are in cli.ts, so that listing the commands loads none of them; a command's
 * module is loaded only when it is the one asked for, and loads its own work only when it runs.
 */
export interface CommandBody {
  builder: (yargs: Argv) => Argv;
  handler: (argv: Record<string, unknown>, io: CliIo) => Promise<number>;
}
