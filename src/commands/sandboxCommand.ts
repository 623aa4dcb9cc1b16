import { readFile, rm, writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { ConfigError } from '../core/errors.js';
import { resolveSandboxOptions, SANDBOX_OPTIONS, type SandboxOptions } from '../options/sandboxOptions.js';
import { startSandbox } from '../sandbox/startSandbox.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CliIo, CommandBody } from './CliCommand.js';

// `payer-onboard sandbox`: the local Payer API emulator, served until SIGINT/SIGTERM. Its flags, their help, the
// README's table, the defaults and the checks all come from SANDBOX_OPTIONS.

const flagOf = (key: string): string => {
  if (key === 'faults') return '--fault-*';
  return key in SANDBOX_OPTIONS ? `--${SANDBOX_OPTIONS[key as keyof typeof SANDBOX_OPTIONS].flag}` : key;
};

/** Flags as yargs parsed them -> checked startSandbox options; throws ConfigError(E_USAGE) naming every bad flag. */
function sandboxOptionsFromArgv(argv: Record<string, unknown>, env: NodeJS.ProcessEnv): SandboxOptions {
  const options: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(SANDBOX_OPTIONS)) {
    const value = argv[def.flag] ?? ('cliDefault' in def ? def.cliDefault : undefined);
    if (value !== undefined) options[key] = value;
  }
  // The webhook secret never comes from a flag value (shell history, `ps`): a file (read by startSandbox) or this.
  if (options.webhookSecretFile === undefined && env.PAYER_WEBHOOK_SECRET)
    options.webhookSecret = env.PAYER_WEBHOOK_SECRET;
  return resolveSandboxOptions(options as SandboxOptions, flagOf);
}

/** The server's process id in PATH, before `listening on` is printed: a script that waited for that line can read it. */
async function writePidFile(path: string): Promise<void> {
  try {
    await writeFile(path, `${process.pid}\n`);
  } catch (error) {
    throw new ConfigError(`--pid-file: cannot write ${path} (${(error as NodeJS.ErrnoException).code})`, 'E_USAGE');
  }
}

/**
 * Until SIGINT/SIGTERM (the bin says so), or, under npx, until npx is gone. npx starts npm, npm a shell and the shell
 * the server: `kill $!` after `npx payer-onboard sandbox &` ends npm and the shell, never the server, which would keep
 * its port with nothing left to stop it by. Its parent gone (the shell), it closes.
 */
async function untilStopped(io: CliIo, parent: number): Promise<void> {
  if (io.signal.aborted) return;
  let poll: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    io.signal.addEventListener('abort', () => resolve(), { once: true });
    if (io.env.npm_command !== 'exec') return;
    poll = setInterval(() => {
      if (process.ppid === parent) return;
      io.stderr.write('\nsandbox: the npx that started it has ended, closing\n');
      resolve();
    }, 250);
  });
  clearInterval(poll);
}

/** Only a file that still names this process: another sandbox may have been given the same path since. */
async function removePidFile(path: string): Promise<void> {
  const named = await readFile(path, 'utf8').catch(() => '');
  if (named.trim() === `${process.pid}`) await rm(path, { force: true });
}

export const sandboxCommand: CommandBody = {
  builder: (yargs: Argv) => {
    return addOptions(yargs, SANDBOX_OPTIONS).example(
      '$0 sandbox --port 4010 --api-key k',
      'then: curl -H "x-api-key: k" -H "content-type: application/json" -d @payer.json http://127.0.0.1:4010/v2/payer',
    );
  },
  handler: async (argv, io) => {
    // The parent as it started: by the time the server listens, a `kill $!` may already have taken it.
    const parent = process.ppid;
    const options = sandboxOptionsFromArgv(argv, io.env);
    let sandbox: Awaited<ReturnType<typeof startSandbox>>;
    try {
      sandbox = await startSandbox(options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new ConfigError(`--port: ${options.port} is already in use on ${options.host}`, 'E_USAGE');
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
        throw new ConfigError(`--host/--port: cannot listen on ${options.host}:${options.port} (${code})`, 'E_USAGE');
      }
      throw error;
    }
    try {
      if (options.pidFile !== undefined) await writePidFile(options.pidFile);
      io.stdout.write(`listening on ${sandbox.url}\n`);
      io.stderr.write(`sandbox: stats at ${sandbox.url}/__sandbox/stats; Ctrl-C to stop\n`);
      await untilStopped(io, parent);
    } finally {
      await sandbox.close();
      if (options.pidFile !== undefined) await removePidFile(options.pidFile);
    }
    return 0;
  },
};
