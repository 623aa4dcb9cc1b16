import { cli } from './cli.js';
import { prepareForcedExit } from './pipeline/forcedExit.js';

/**
 * The process edge: wires signals and streams, returns the exit code to bin/payer-onboard.js.
 * The first SIGINT/SIGTERM asks the running command to drain and write everything; a second one exits at once,
 * through `exitNow`, which the bin gives: it is the only place that ends the process.
 */
export async function main(argv: string[], exitNow: (code: number) => void): Promise<number> {
  const controller = new AbortController();
  // What the first signal means depends on the command: a run finishes its calls and writes its files; the sandbox
  // has nothing to finish and closes at once. The command is argv's first word, as yargs reads it.
  const firstWords = argv.find((arg) => !arg.startsWith('-')) === 'sandbox' ? closing : draining;
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.stderr.write(`\npayer-onboard: ${signal} again, exiting now\n`);
      // pino's exit hook would write the log's last lines synchronously: on a full disk that never returns.
      prepareForcedExit();
      exitNow(3);
    }
    process.stderr.write(firstWords(signal));
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await cli(argv, {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      cwd: process.cwd(),
      signal: controller.signal,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const draining = (signal: string) =>
  `\npayer-onboard: ${signal}: finishing calls in flight, then writing results (again to exit at once)\n`;
const closing = (signal: string) => `\nsandbox: ${signal}, closing\n`;
