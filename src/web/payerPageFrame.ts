// Whether the service lets the payer's page frame its agreement page. A browser that refuses a frame (X-Frame-Options,
// CSP frame-ancestors) shows an error page in it and still fires `load`, and the parent can read nothing of either
// page, so the page cannot tell by itself: serve asks for the agreement page's headers as a browser would for a frame,
// and judges them as the browser will.

/** What the headers say: the page may be framed here, it may not, or nothing could be learned (unreachable...). */
export type FrameVerdict = 'allowed' | 'refused' | 'unknown';

/** How long the look at the agreement page may take: the payer's page waits for it only in its script. */
const LOOK_MS = 5000;
/** How long a verdict is kept: the service's headers do not change by the minute, and each look is a request to it. */
const KEPT_MS = 10 * 60_000;
/** Verdicts kept at most (one per agreement page address and page origin). */
const MOST_KEPT = 1000;

/** The verdicts of the agreement pages asked about lately, by page and by the payer page's origin. */
export class FrameChecks {
  private readonly kept = new Map<string, { verdict: FrameVerdict; until: number }>();

  constructor(
    private readonly look: (url: string) => Promise<Headers & { url?: string }> = lookAt,
    private readonly now: () => number = Date.now,
  ) {}

  async verdict(url: string, pageOrigin: string): Promise<FrameVerdict> {
    const key = `${pageOrigin} ${url}`;
    const kept = this.kept.get(key);
    if (kept !== undefined && kept.until > this.now()) return kept.verdict;
    let verdict: FrameVerdict;
    try {
      const headers = await this.look(url);
      verdict = frameVerdict(headers, headers.url ?? url, pageOrigin);
    } catch {
      verdict = 'unknown';
    }
    if (this.kept.size >= MOST_KEPT) this.kept.clear();
    // What could not be learned is asked again sooner.
    this.kept.set(key, { verdict, until: this.now() + (verdict === 'unknown' ? KEPT_MS / 10 : KEPT_MS) });
    return verdict;
  }
}

/** The headers of the page as a browser's frame would get them (redirects followed), its body left unread. */
async function lookAt(url: string): Promise<Headers & { url?: string }> {
  const answer = await fetch(url, {
    redirect: 'follow',
    headers: { accept: 'text/html', 'sec-fetch-dest': 'iframe', 'sec-fetch-mode': 'navigate' },
    signal: AbortSignal.timeout(LOOK_MS),
  });
  await answer.body?.cancel();
  if (!answer.ok) throw new Error(`status ${answer.status}`);
  return Object.assign(answer.headers, { url: answer.url });
}

/**
 * What a browser does with a frame of `pageUrl` (as finally answered) inside a page of `pageOrigin`: a CSP
 * `frame-ancestors` decides when there is one (X-Frame-Options is then ignored), else X-Frame-Options DENY or
 * SAMEORIGIN (the service's page is never of the payer page's origin) refuses it.
 */
export function frameVerdict(headers: Headers, pageUrl: string, pageOrigin: string): FrameVerdict {
  const policies = (headers.get('content-security-policy') ?? '').split(',');
  const ancestors = policies.flatMap((policy) =>
    policy
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name?.toLowerCase() === 'frame-ancestors')
      .map(([, ...sources]) => sources),
  );
  if (ancestors.length > 0) {
    // Every policy must allow it.
    const allowed = ancestors.every((sources) => sources.some((source) => sourceMatches(source, pageUrl, pageOrigin)));
    return allowed ? 'allowed' : 'refused';
  }
  const options = (headers.get('x-frame-options') ?? '').toLowerCase().split(',');
  const refused = options.some((value) => {
    const word = value.trim();
    return word === 'deny' || (word === 'sameorigin' && new URL(pageUrl).origin !== pageOrigin);
  });
  return refused ? 'refused' : 'allowed';
}

/** Whether one source of a `frame-ancestors` list takes the page origin as an ancestor. */
function sourceMatches(source: string, pageUrl: string, pageOrigin: string): boolean {
  const ancestor = new URL(pageOrigin);
  const word = source.toLowerCase();
  if (word === "'none'") return false;
  if (word === "'self'") return new URL(pageUrl).origin === pageOrigin;
  if (word === '*') return true;
  // A scheme alone (`https:`); http: takes https too.
  if (/^[a-z][a-z0-9+.-]*:$/.test(word))
    return word === ancestor.protocol || (word === 'http:' && ancestor.protocol === 'https:');
  const parts = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^/:]+|\*)(?::(\d+|\*))?(?:\/.*)?$/.exec(word);
  if (parts === null) return false;
  const [, scheme, wildcard, host, port] = parts;
  if (
    scheme !== undefined &&
    scheme !== ancestor.protocol.slice(0, -1) &&
    !(scheme === 'http' && ancestor.protocol === 'https:')
  )
    return false;
  const hostname = ancestor.hostname.toLowerCase();
  const hostFits = host === '*' || (wildcard !== undefined ? hostname.endsWith(`.${host}`) : hostname === host);
  if (!hostFits) return false;
  const defaultPort = ancestor.protocol === 'https:' ? '443' : '80';
  const ancestorPort = ancestor.port || defaultPort;
  return port === '*' || (port ?? defaultPort) === ancestorPort;
}
