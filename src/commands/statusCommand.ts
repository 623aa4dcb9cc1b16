import type { CommandBody } from './CliCommand.js';
import { INPUT_FILES, runInputFromArgv, withRunOptions } from './runCommand.js';

/** `payer-onboard status <input...>`: who can be paid now, who is stuck, whom to chase. Reads only. */
export const statusCommand: CommandBody = {
  builder: (yargs) =>
    withRunOptions(yargs, 'status')
      .positional('input', {
        ...INPUT_FILES,
        describe: 'payer files, failed or pending files, or a results.csv of an earlier run',
      })
      .example(
        'PAYER_API_KEY=... $0 status payers.csv --base-url https://api.example.com',
        'who has finished KYC and the agreement, and who can be paid',
      )
      .example(
        '$0 status payer-onboard-results/<run id>/results.csv --exit-code ...',
        'exit 1 until every payer is payable',
      ),
  handler: async (argv, io) => {
    const input = runInputFromArgv(argv);
    // Loaded here, not with the CLI: status loads got with it, which its --help should not pay for.
    const { runStatus } = await import('../status/runStatus.js');
    const summary = await runStatus(input, { cwd: io.cwd, env: io.env, stderr: io.stderr, signal: io.signal });
    if (input.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return summary.exitCode;
  },
};
