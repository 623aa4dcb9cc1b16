import { outcomeLine } from '../inbox/outcomeLine.js';
import { INBOX_OPTIONS } from '../options/inboxOptions.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CommandBody } from './CliCommand.js';
import { runInputFromArgv, withRunOptions } from './runCommand.js';

/**
 * `payer-onboard inbox DIR`: the shared drop folder, for cron (one pass) or a service (--watch).
 * --json prints one line per file taken (its outcome and run summary); nothing at all when there was nothing to do.
 */
export const inboxCommand: CommandBody = {
  builder: (yargs) =>
    addOptions(withRunOptions(yargs, 'inbox'), INBOX_OPTIONS)
      .positional('dir', {
        type: 'string',
        describe: 'inbox folder holding incoming/ (created: processing/, done/, failed/, results/)',
      })
      .example(
        '$0 inbox /srv/payers --base-url https://api.example.com --api-key-file /etc/payer-onboard/key',
        'one pass, from cron',
      )
      .example('$0 inbox /srv/payers --watch --settle 30 ...', 'keep watching the folder'),
  handler: async (argv, io) => {
    const { inputs: _inputs, ...runInput } = runInputFromArgv(argv);
    const json = Boolean(runInput.json);
    const { runInbox } = await import('../inbox/runInbox.js');
    const { osActor } = await import('../web/teamUsers.js');
    const result = await runInbox(
      {
        dir: String(argv.dir),
        watch: Boolean(argv.watch),
        ...(argv.settle !== undefined ? { settle: Number(argv.settle) } : {}),
        ...(argv['recheck-after'] !== undefined ? { recheckAfter: Number(argv['recheck-after']) } : {}),
        run: runInput,
        ...(json
          ? {
              onFile: (o) => io.stdout.write(outcomeLine(o)),
            }
          : {}),
      },
      // The operator's path: each file's run enters the audit trail as the OS user and host.
      { cwd: io.cwd, env: io.env, stderr: io.stderr, signal: io.signal, actor: osActor() },
    );
    return result.exitCode;
  },
};
