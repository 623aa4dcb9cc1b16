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

/** One subcommand: its yargs definition and a handler that returns the exit code (never calls process.exit). */
export interface CliCommand {
  command: string;
  describe: string;
  builder: (yargs: Argv) => Argv;
  handler: (argv: Record<string, unknown>, io: CliIo) => Promise<number>;
}
