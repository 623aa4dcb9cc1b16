import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A mail as the server took it: the envelope it was given and the message, parsed. */
interface Received {
  from: string;
  to: string[];
  mail: ParsedMail;
  raw: string;
}

/** An SMTP error reply, as smtp-server sends one: `Object.assign(new Error(text), { responseCode })`. */
export function reply(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/**
 * A real SMTP server on loopback, on a port of its own, for one test: what it received is in `received` by the time
 * the client's send has its answer (the server answers the message's end after it has it whole). `refuse` scripts a
 * recipient's answer.
 */
export async function startSmtpServer(
  options: {
    refuse?: (address: string) => Error | undefined;
    server?: Partial<SMTPServerOptions>;
    /** A port of the test's choosing (a server that comes back where one was down); else one of the system's. */
    port?: number;
  } = {},
) {
  const received: Received[] = [];
  const server = new SMTPServer({
    // The mailer uses no TLS to loopback; a test that wants STARTTLS offered says so.
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      callback(options.refuse?.(address.address) ?? null);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            received.push({
              from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((r) => r.address),
              mail,
              raw: raw.toString('utf8'),
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
    ...options.server,
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on: one the system gave out and that was closed again. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
