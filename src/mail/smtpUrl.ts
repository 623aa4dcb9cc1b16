import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';

// The SMTP URL holds the server's password, so no message here repeats any part of it: a problem names where the
// URL came from (PAYER_ONBOARD_SMTP_URL or its file) and what is wrong, never the value.

/** How the mails reach an SMTP server: the options nodemailer is given, and the server named for people. */
export interface SmtpTransport {
  kind: 'smtp';
  options: SMTPTransportOptions;
  /** `smtp.example.com:587 with STARTTLS`: what a page or a log line may say of it (no user, no password). */
  label: string;
}

/** A server that does not answer the greeting within this is taken as unreachable: a mail waits, it is not lost. */
const CONNECT_TIMEOUT_MS = 15_000;
/** A server silent this long in the middle of a mail is taken as gone. */
const SOCKET_TIMEOUT_MS = 60_000;

/** Whether a host is this machine, where a mail never crosses a network and needs no TLS. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The transport an SMTP URL names, or the problems with it (each naming `source`). `smtps://` is TLS from the first
 * byte; `smtp://` must be upgraded by STARTTLS, or the send fails rather than going out in the clear, except to
 * this machine (a local relay). The URL takes no `?options`: the ones nodemailer reads there (`requireTLS=false`,
 * `ignoreTLS`, `tls.rejectUnauthorized=false`) are how TLS would be turned off, and the tool decides TLS itself.
 */
export function smtpTransportFromUrl(value: string, source: string): SmtpTransport | { problems: string[] } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return {
      problems: [`${source}: not a URL: write smtps://USER:PASSWORD@HOST:465 or smtp://USER:PASSWORD@HOST:587`],
    };
  }
  const problems: string[] = [];
  const secure = url.protocol === 'smtps:';
  // Not even the scheme is repeated: in `user:password@host` written without one, the user name stands there.
  if (!secure && url.protocol !== 'smtp:')
    return { problems: [`${source}: must start with smtps:// (TLS) or smtp:// (STARTTLS)`] };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') problems.push(`${source}: names no server`);
  const names = [...new Set(url.searchParams.keys())];
  if (names.length > 0)
    problems.push(
      `${source}: takes no ?options (found ${names.join(', ')}): TLS is set by the scheme, smtps:// or smtp:// with STARTTLS`,
    );
  const auth = credentials(url, source, problems);
  if (problems.length > 0) return { problems };
  const loopback = isLoopback(host.toLowerCase());
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  const options: SMTPTransportOptions = {
    host,
    port,
    secure,
    // Over loopback nothing crosses a network, and a local relay's certificate rarely names `localhost`.
    requireTLS: !secure && !loopback,
    ignoreTLS: !secure && loopback,
    tls: { minVersion: 'TLSv1.2' },
    auth,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  };
  const how = secure ? 'TLS' : loopback ? 'no TLS (this machine)' : 'STARTTLS';
  return { kind: 'smtp', options, label: `${url.hostname}:${port} with ${how}` };
}

function credentials(url: URL, source: string, problems: string[]): SMTPTransportOptions['auth'] {
  if (url.username === '' && url.password === '') return undefined;
  try {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    if (user === '' || pass === '') {
      problems.push(`${source}: give both a user name and a password (USER:PASSWORD@HOST), or neither`);
      return undefined;
    }
    return { user, pass };
  } catch {
    problems.push(`${source}: the user name or password holds a % that is not %XX: percent-encode it`);
    return undefined;
  }
}
