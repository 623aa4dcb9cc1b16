import type { OptionDef } from './OptionDef.js';
import { LINK_OPTIONS } from './serveOptions.js';

/**
 * `payer-onboard users add|list|role|disable|enable|link`: the web page's named users, in the store of serve's state
 * dir for its service and key.
 */
export const USERS_OPTIONS = {
  role: {
    flag: 'role',
    type: 'string',
    value: 'ROLE',
    choices: ['viewer', 'preparer', 'approver', 'admin'],
    describe:
      '`add`: what the user may do on the page: `viewer` (Payers, reports), `preparer` (also upload, map, fix), `approver` (also approve and send), `admin` (also users, settings, the audit trail)',
  },
  email: {
    flag: 'email',
    type: 'string',
    value: 'ADDRESS',
    describe:
      "`add`: the user's e-mail address: how the company's identity provider signs them in (OpenID Connect), and where serve mails their links",
  },
  publicUrl: {
    ...LINK_OPTIONS.publicUrl,
    describe:
      "serve's address, as serve is given it (`https://payers.example.com`, or `http://127.0.0.1:PORT` on this machine): `add` and `link` print a one-time link to it, for the user to set their password",
  },
  baseUrl: LINK_OPTIONS.baseUrl,
  apiKeyFile: LINK_OPTIONS.apiKeyFile,
  inbox: LINK_OPTIONS.inbox,
  stateDir: {
    ...LINK_OPTIONS.stateDir,
    describe: "serve's state dir, whose store (`payer-onboard.db`) keeps the users",
  },
  databaseUrlFile: LINK_OPTIONS.databaseUrlFile,
} as const satisfies Record<string, OptionDef>;
