import { homedir } from 'node:os';
import { MAIL_OPTIONS } from '../options/mailOptions.js';
import { INVITE_OPTIONS } from '../options/serveOptions.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CommandBody } from './CliCommand.js';

/**
 * `payer-onboard invite ID...`: asks serve to invite payers it did not invite by itself; `--preview ID` and
 * `--dry-run` show what would go, and write nothing. One line a payer on stdout; counts on stderr.
 */
export const inviteCommand: CommandBody = {
  builder: (yargs) =>
    addOptions(yargs, INVITE_OPTIONS)
      .positional('id', { type: 'string', array: true, describe: "the payers' clientUserIds" })
      .example('$0 invite --inbox /srv/payers --base-url https://api.example.com p-1 p-2', 'serve invites these two')
      .example(
        '$0 invite --inbox /srv/payers --base-url https://api.example.com --all-pending --dry-run',
        'who would be',
      )
      .example('$0 invite --inbox /srv/payers --base-url https://api.example.com --preview p-1 --mail-from ...', ''),
  handler: async (argv, io) => {
    const { invitePayers } = await import('../serve/invitePayers.js');
    const given: Record<string, unknown> = { ids: ((argv.id as string[] | undefined) ?? []).map(String) };
    const mail: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(INVITE_OPTIONS)) {
      const value = argv[def.flag];
      if (value === undefined) continue;
      if (name in MAIL_OPTIONS) mail[name] = value;
      else given[name] = value;
    }
    const places = { cwd: io.cwd, env: io.env, home: io.env.HOME ?? homedir() };
    const result = await invitePayers({ ...given, mail } as Parameters<typeof invitePayers>[0], places);
    if (result.preview !== undefined) {
      io.stdout.write(result.preview.endsWith('\n') ? result.preview : `${result.preview}\n`);
      return 0;
    }
    for (const line of result.lines) io.stdout.write(`${line.clientUserId}\t${line.step}\t${line.what}\n`);
    const asked = result.lines.filter((line) => line.asked).length;
    const passed = [...result.passedOver].map(([why, n]) => `${n} ${why}`);
    const dry = argv['dry-run'] === true;
    if (given.ids !== undefined && ((given.ids as string[]).length > 0 || argv['all-pending'] === true))
      io.stderr.write(
        `invite: ${asked} payer${asked === 1 ? '' : 's'} ${dry ? 'would be' : 'to be'} invited${dry ? '' : ' (serve sends the mails)'}` +
          `${passed.length > 0 ? `; passed over: ${passed.join('; ')}` : ''}\n`,
      );
    // A payer named that could not be invited: the line says why.
    return result.lines.some((line) => !line.asked) ? 1 : 0;
  },
};
