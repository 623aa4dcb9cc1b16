import { ConfigError } from '../core/errors.js';
import { outcomeLine } from '../inbox/outcomeLine.js';
import type { FileOutcome } from '../inbox/processFile.js';
import { MAIL_OPTIONS } from '../options/mailOptions.js';
import { SERVE_OPTIONS } from '../options/serveOptions.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CommandBody } from './CliCommand.js';
import { runInputFromArgv, withRunOptions } from './runCommand.js';

/**
 * `payer-onboard serve --inbox DIR`: the long-running process (systemd, a container) that takes the service's
 * webhooks and runs the inbox. Ends with 0 on SIGINT/SIGTERM once what was in flight is finished and flushed.
 */
export const serveCommand: CommandBody = {
  builder: (yargs) =>
    addOptions(withRunOptions(yargs, 'inbox'), SERVE_OPTIONS)
      .example(
        'PAYER_API_KEY=... PAYER_WEBHOOK_SECRET=... $0 serve --inbox /srv/payers --base-url https://api.example.com',
        'webhooks at http://127.0.0.1:8787/webhooks, behind a TLS proxy',
      )
      .example('$0 serve --inbox /srv/payers --webhook-secret-file /etc/payer-onboard/webhook-secret ...', '')
      .example(
        "$0 serve --inbox /srv/payers --public-url https://payers.example.com --mail-from 'Payments <pay@example.com>' ...",
        'invite each payer it registers by e-mail, then remind them after 3 and 7 days',
      ),
  handler: async (argv, io) => {
    if (argv.inbox === undefined)
      throw new ConfigError(
        'serve: --inbox DIR is required: the folder whose waiting rows the webhooks move on (create it first)',
        'E_USAGE',
      );
    const { inputs: _inputs, ...runInput } = runInputFromArgv(argv);
    const { startServe } = await import('../serve/runServe.js');
    const port = argv.port === undefined ? SERVE_OPTIONS.port.cliDefault : Number(argv.port);
    // Only the mail flags typed: their defaults are applied once, where the settings are checked.
    const mail = Object.fromEntries(
      Object.entries(MAIL_OPTIONS).flatMap(([name, def]) =>
        argv[def.flag] === undefined ? [] : [[name, argv[def.flag] as string | number]],
      ),
    );
    const options = {
      inbox: String(argv.inbox),
      port,
      ...(argv.host !== undefined ? { host: String(argv.host) } : {}),
      ...(argv['webhook-path'] !== undefined ? { webhookPath: String(argv['webhook-path']) } : {}),
      ...(argv['webhook-secret-file'] !== undefined ? { webhookSecretFile: String(argv['webhook-secret-file']) } : {}),
      ...(argv['web-password-file'] !== undefined ? { webPasswordFile: String(argv['web-password-file']) } : {}),
      ...(argv['upload-limit'] !== undefined ? { uploadLimitMb: Number(argv['upload-limit']) } : {}),
      ...(argv['public-url'] !== undefined ? { publicUrl: String(argv['public-url']) } : {}),
      ...(argv['oidc-issuer'] !== undefined ? { oidcIssuer: String(argv['oidc-issuer']) } : {}),
      ...(argv['oidc-client-id'] !== undefined ? { oidcClientId: String(argv['oidc-client-id']) } : {}),
      ...(argv['oidc-client-secret-file'] !== undefined
        ? { oidcClientSecretFile: String(argv['oidc-client-secret-file']) }
        : {}),
      ...(argv['oidc-role-claim'] !== undefined ? { oidcRoleClaim: String(argv['oidc-role-claim']) } : {}),
      ...(argv['agreement-origins'] !== undefined ? { agreementOrigins: String(argv['agreement-origins']) } : {}),
      ...(argv['link-days'] !== undefined ? { linkDays: Number(argv['link-days']) } : {}),
      ...(argv['trust-proxy'] !== undefined ? { trustProxy: String(argv['trust-proxy']) } : {}),
      ...(argv.settle !== undefined ? { settle: Number(argv.settle) } : {}),
      ...(argv['recheck-after'] !== undefined ? { recheckAfter: Number(argv['recheck-after']) } : {}),
      ...(argv['quiet-after'] !== undefined ? { quietAfter: Number(argv['quiet-after']) } : {}),
      ...(argv['link-days'] !== undefined ? { linkDays: Number(argv['link-days']) } : {}),
      ...(argv['remind-after'] !== undefined ? { remindAfter: String(argv['remind-after']) } : {}),
      mail,
      run: runInput,
      // --json: a line per file run, as the inbox prints (event batches and rechecks included).
      ...(runInput.json
        ? {
            onFile: (o: FileOutcome) => io.stdout.write(outcomeLine(o)),
          }
        : {}),
    };
    let handle: Awaited<ReturnType<typeof startServe>>;
    try {
      handle = await startServe(options, { cwd: io.cwd, env: io.env, stderr: io.stderr, signal: io.signal });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new ConfigError(`--port: ${port} is already in use`, 'E_USAGE');
      if (code === 'EADDRNOTAVAIL' || code === 'EACCES' || code === 'ENOTFOUND')
        throw new ConfigError(`--host/--port: cannot listen there (${code})`, 'E_USAGE');
      throw error;
    }
    io.stdout.write(`listening on ${handle.url}\n`);
    await handle.closed;
    return handle.failure() === undefined ? 0 : 3;
  },
};
