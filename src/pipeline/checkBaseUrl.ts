/**
 * The base URL must be https, or plain http only to this machine (the sandbox) or with --allow-http:
 * the key and personal data would otherwise cross the network in the clear (design.md §10).
 * Returns the problem, or undefined when the URL is fine.
 */
export function checkBaseUrl(value: string, allowHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL (expected e.g. https://api.example.com)`;
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  // The API's paths carry their version (`v1/payer`, `v2/payer/...`): a root that ends in one would send `/v1/v1/payer`.
  const version = /\/(v\d+)\/*$/i.exec(url.pathname);
  if (version) {
    const root = `${url.origin}${url.pathname.slice(0, version.index) || ''}`;
    return `ends in /${version[1]}, but the API's paths already start with their version: use ${root}`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `unsupported protocol "${url.protocol}": use https://`;
  if (allowHttp || isLoopback(url.hostname)) return undefined;
  return `plain http:// to ${url.hostname} would send the key and personal data unencrypted: use https:// (or --allow-http if you really mean it)`;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
