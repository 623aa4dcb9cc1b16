import type { CliCommand } from './CliCommand.js';
import { runInputFromArgv, withRunOptions } from './run.js';

/** `payer-onboard status <input...>`: who can be paid now, who is stuck, whom to chase. Reads only. */
export const statusCommand: CliCommand = {
  command: 'status <input...>',
  describe:
    'ask the service where each payer stands now (KYC, agreement, bank account) and write status.csv; reads only',
  builder: (yargs) =>
    withRunOptions(yargs, 'status')
      .positional('input', {
        type: 'string',
        array: true,
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
    // Loaded here, not with the CLI: status loads got with it, which no other command's --help should pay for.
    const { runStatus } = await import('../status/runStatus.js');
    const summary = await runStatus(input, { cwd: io.cwd, env: io.env, stderr: io.stderr, signal: io.signal });
    if (input.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return summary.exitCode;
  },
};
