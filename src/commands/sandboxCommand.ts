import type { Argv } from 'yargs';
import { ConfigError } from '../core/errors.js';
import { resolveSandboxOptions, SANDBOX_OPTIONS, type SandboxOptions } from '../options/sandboxOptions.js';
import { startSandbox } from '../sandbox/startSandbox.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CommandBody } from './CliCommand.js';

// `payer-onboard sandbox`: the local Payer API emulator, served until SIGINT/SIGTERM. Its flags, their help, the
// README's table, the defaults and the checks all come from SANDBOX_OPTIONS.

const flagOf = (key: string): string => {
  if (key === 'faults') return '--fault-*';
  return key in SANDBOX_OPTIONS ? `--${SANDBOX_OPTIONS[key as keyof typeof SANDBOX_OPTIONS].flag}` : key;
};

/** Flags as yargs parsed them -> checked startSandbox options; throws ConfigError(E_USAGE) naming every bad flag. */
function sandboxOptionsFromArgv(argv: Record<string, unknown>): SandboxOptions {
  const options: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(SANDBOX_OPTIONS)) {
    const value = argv[def.flag] ?? ('cliDefault' in def ? def.cliDefault : undefined);
    if (value !== undefined) options[key] = value;
  }
  return resolveSandboxOptions(options as SandboxOptions, flagOf);
}

export const sandboxCommand: CommandBody = {
  builder: (yargs: Argv) => {
    return addOptions(yargs, SANDBOX_OPTIONS).example(
      '$0 sandbox --port 4010 --api-key k',
      'then: curl -H "x-api-key: k" -H "content-type: application/json" -d @payer.json http://127.0.0.1:4010/v1/payer',
    );
  },
  handler: async (argv, io) => {
    const options = sandboxOptionsFromArgv(argv);
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
    io.stdout.write(`listening on ${sandbox.url}\n`);
    io.stderr.write(`sandbox: stats at ${sandbox.url}/__sandbox/stats; Ctrl-C to stop\n`);
    if (!io.signal.aborted) {
      await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }));
    }
    await sandbox.close();
    return 0;
  },
};
