import { createConnection, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { LockedError } from '../core/errors.js';
import { type Holder, lockedBy } from '../store/holder.js';

/**
 * One process at a time per service and key on this machine, whatever its user, HOME, XDG_STATE_HOME, --state-dir or
 * systemd sandboxing (PrivateTmp): a Unix socket in Linux's abstract namespace, named by the service and a hash of the
 * key. It is no file, so no folder's permissions or mount decide who sees it: every process of the machine's network
 * namespace does. The kernel frees it when its process ends however it ends, so a lock is never left behind. The
 * holder answers whoever connects with who it is, and that one is turned away naming it.
 */
export class ServiceLock {
  private constructor(private readonly server: Server) {}

  static async acquire(
    name: string,
    holder: Omit<Holder, 'pid' | 'host' | 'startedAt'>,
    using: string,
  ): Promise<ServiceLock> {
    const me: Holder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), ...holder };
    const address = `\0payer-onboard/${name}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const server = createServer((socket) => socket.end(`${JSON.stringify(me)}\n`));
      const taken = await new Promise<boolean>((resolve, reject) => {
        server.once('error', (error: NodeJS.ErrnoException) =>
          error.code === 'EADDRINUSE' ? resolve(false) : reject(error),
        );
        server.listen(address, () => resolve(true));
      });
      if (taken) {
        // A lock never keeps the process alive by itself.
        server.unref();
        return new ServiceLock(server);
      }
      const other = await askHolder(address);
      // Gone between the two steps: try again.
      if (other !== undefined) throw lockedBy(other, using);
    }
    throw new LockedError(`could not take the lock of ${using}: another run keeps taking it`);
  }

  release(): void {
    this.server.close();
  }
}

/** The holder's own words, or undefined when it went away meanwhile. */
function askHolder(address: string): Promise<Holder | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const socket = createConnection(address);
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', () => resolve(undefined));
    socket.on('close', () => {
      try {
        resolve(JSON.parse(text) as Holder);
      } catch {
        // it answered nothing we can read: still, it holds the name
        resolve({ pid: 0, host: 'this machine', startedAt: 'at an unknown time' });
      }
    });
  });
}
