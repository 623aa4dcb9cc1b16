import { createHash } from 'node:crypto';
import { createConnection, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { LockedError } from '../core/errors.js';
import { type Holder, holderOf, lockedBy } from '../store/holder.js';

/**
 * One process at a time per service and key on this machine, whatever its user, HOME, XDG_STATE_HOME, --state-dir or
 * systemd sandboxing (PrivateTmp): a Unix socket in Linux's abstract namespace, named by the service and a hash of the
 * key. The namespace is the network namespace's: a container or a unit with a network of its own has its own, and
 * its runs are held apart by the lock of the state dir's store instead. It is no file, so no folder's permissions or mount decide who sees it: every process of the machine's network
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
    // A socket's name holds at most 107 bytes: a long host name gives way to a hash of the whole name.
    const address = `\0payer-onboard/${name.length <= 80 ? name : createHash('sha256').update(name).digest('hex')}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const server = createServer((socket) => {
        // Whoever connects (any process of the machine may) must neither end the holder by going away at once, nor
        // keep it alive by staying: it gets one line, and a second to take it.
        socket.on('error', () => undefined);
        socket.unref();
        socket.setTimeout(1000, () => socket.destroy());
        socket.end(`${JSON.stringify(me)}\n`);
      });
      const taken = await new Promise<boolean>((resolve, reject) => {
        server.once('error', (error: NodeJS.ErrnoException) =>
          error.code === 'EADDRINUSE' ? resolve(false) : reject(error),
        );
        server.listen(address, () => resolve(true));
      });
      if (taken) {
        // A lock never keeps the process alive by itself, and nothing that happens to it later ends the process.
        server.unref();
        server.on('error', () => undefined);
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
    // Whatever answers has 5 s in all and 4 kB to say who it is: a squatter on the name cannot hold a run up.
    const deadline = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (chunk) => {
      text += chunk;
      if (text.length > 4096) socket.destroy();
    });
    socket.on('close', () => clearTimeout(deadline));
    socket.on('error', () => resolve(undefined));
    socket.on('close', () => resolve(holderOf(text)));
  });
}
