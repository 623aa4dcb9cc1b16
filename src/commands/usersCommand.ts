import { ConfigError } from '../core/errors.js';
import { USERS_OPTIONS } from '../options/usersOptions.js';
import { openStore, storeMayHold } from '../store/openStore.js';
import type { ControlTables, Role, WebUser } from '../store/Store.js';
import { Audit } from '../web/Audit.js';
import { isRole } from '../web/roles.js';
import { addUser, changeUser, osActor, PASSWORD_LINK_HOURS, passwordLink } from '../web/teamUsers.js';
import type { CliIo, CommandBody } from './CliCommand.js';
import { withWhereOptions } from './directoryCommand.js';
import { checkedPublicUrl, servePlace } from './linkCommand.js';

type Action = 'add' | 'list' | 'role' | 'disable' | 'enable' | 'link';

/**
 * `payer-onboard users ...`: the web page's named users, kept in the store of serve's state dir for its service and
 * key; the first admin is made here. Each change enters the audit trail with the OS user and host.
 */
export const usersCommand: CommandBody = {
  builder: (yargs) =>
    withWhereOptions(yargs, USERS_OPTIONS)
      .command('add <name>', 'add a user with --role ROLE: prints a one-time link for them to set their password')
      .command('list', 'the users, their roles, and who is disabled')
      .command('role <name> <role>', "change a user's role")
      .command('disable <name>', 'disable a user (never deleted: the audit trail names them); their sessions end')
      .command('enable <name>', 'enable a disabled user again')
      .command('link <name>', 'a new one-time link for a user to set their password (a forgotten one)')
      .demandCommand(1, 'Choose add, list, role, disable, enable or link.')
      .example(
        'PAYER_API_KEY=... $0 users add "Ada Byron" --role admin --inbox /srv/payers --base-url https://api.example.com --public-url https://payers.example.com',
        'the first admin, and the link to set her password',
      ),
  handler: async (argv, io) => {
    const action = String((argv._ as unknown[])[1]) as Action;
    const name = argv.name === undefined ? '' : String(argv.name);
    const publicUrl = argv['public-url'] === undefined ? undefined : checkedPublicUrl(String(argv['public-url']));
    if ((action === 'add' || action === 'link') && publicUrl === undefined)
      throw new ConfigError(
        `users ${action}: --public-url URL is required: serve's address, which the one-time link leads to`,
        'E_USAGE',
      );
    const role = argv.role;
    if ((action === 'add' || action === 'role') && !isRole(role))
      throw new ConfigError(`users ${action}: --role must be one of viewer, preparer, approver, admin`, 'E_USAGE');
    const place = servePlace(argv, io);
    if (action !== 'add' && !storeMayHold(place))
      throw new ConfigError(
        `users: no store in ${place.stateDir}: give serve's --inbox DIR, or the --state-dir it keeps its store in`,
        'E_USAGE',
      );
    const store = await openStore(place);
    try {
      const tables = store.controls(place.service);
      const audit = new Audit(tables);
      if (action === 'list') return await list(tables, io);
      if (action === 'add') {
        const email = argv.email === undefined ? undefined : String(argv.email);
        const added = await addUser(tables, audit, osActor(), { name, role: role as Role, email });
        if ('problem' in added) throw new ConfigError(`users add: ${added.problem}`, 'E_USAGE');
        io.stderr.write(`users: ${added.user.name} added as ${added.user.role}\n`);
        return await linkFor(tables, audit, added.user, publicUrl!, io);
      }
      const user = await tables.user({ name });
      if (user === undefined) {
        io.stderr.write(`users: there is no user named ${name} (users list shows them)\n`);
        return 1;
      }
      if (action === 'link') return await linkFor(tables, audit, user, publicUrl!, io);
      const change = action === 'role' ? { role: role as Role } : { disabled: action === 'disable' };
      const changed = await changeUser(tables, audit, osActor(), user, change);
      io.stderr.write(`users: ${changed.name} is ${describe(changed)}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

async function linkFor(tables: ControlTables, audit: Audit, user: WebUser, publicUrl: string, io: CliIo) {
  const made = await passwordLink(tables, audit, osActor(), user, publicUrl);
  io.stdout.write(`${made.url}\n`);
  io.stderr.write(
    `users: hand ${user.name} this link to set their password: it works once, within ${PASSWORD_LINK_HOURS} hours\n`,
  );
  return 0;
}

async function list(tables: ControlTables, io: CliIo): Promise<number> {
  const users = await tables.users();
  if (users.length === 0) io.stderr.write('users: none yet; add the first admin with users add NAME --role admin\n');
  for (const user of users) io.stdout.write(`${user.name}\t${describe(user)}\n`);
  return 0;
}

function describe(user: WebUser): string {
  const state =
    user.disabledAt !== undefined ? 'disabled' : user.passwordHash === undefined ? 'no password set yet' : 'active';
  return `${user.role}, ${state}`;
}
