import { ConfigError } from '../core/errors.js';
import { isLoopbackHost, readSecretFile } from './connection.js';
import type { OptionDef } from './OptionDef.js';

/** The variable the client id comes from when no flag gives it. */
const CLIENT_ID_ENV = 'PAYER_OIDC_CLIENT_ID';
/** The variable the client secret comes from when no file is given: a secret, so never a flag's value. */
const CLIENT_SECRET_ENV = 'PAYER_OIDC_CLIENT_SECRET';
/** Where the identity provider sends the browser back to, under `--public-url`. */
export const OIDC_CALLBACK_PATH = '/login/oidc/callback';

/** Sign-in with the company's identity provider (OpenID Connect): serve's flags for it, its help and docs rows. */
export const OIDC_OPTIONS = {
  oidcIssuer: {
    flag: 'oidc-issuer',
    type: 'string',
    value: 'URL',
    describe: `the company's identity provider, by its OpenID Connect issuer (\`https://login.example.com/realms/finance\`; http only to loopback): the sign-in page offers "Sign in with your company account"; the provider sends the browser back to \`--public-url\` + \`${OIDC_CALLBACK_PATH}\` (register that for the client); users are matched by their verified e-mail`,
  },
  oidcClientId: {
    flag: 'oidc-client-id',
    type: 'string',
    value: 'ID',
    env: CLIENT_ID_ENV,
    describe: 'the client id the identity provider gave serve (required with `--oidc-issuer`)',
  },
  oidcClientSecretFile: {
    flag: 'oidc-client-secret-file',
    type: 'string',
    value: 'FILE',
    describe: `file holding the client secret the identity provider gave serve; without it the secret comes from \`${CLIENT_SECRET_ENV}\`, never from a flag value; one or the other is required with \`--oidc-issuer\``,
  },
  oidcRoleClaim: {
    flag: 'oidc-role-claim',
    type: 'string',
    value: 'CLAIM',
    describe:
      'a claim of the ID token (or userinfo) whose value, a string or a list, names a role: `viewer`, `preparer`, `approver` or `admin`, the highest named winning; a user it names a role for gets that role, and one no admin added is added with it; without it, only users an admin added with their `--email` sign in, with the role they were given',
  },
} as const satisfies Record<string, OptionDef>;

/** The identity provider's options as a caller gives them (the secret itself only from a library caller). */
export interface OidcInput {
  oidcIssuer?: string;
  oidcClientId?: string;
  /** The client secret itself, for a library caller; the CLI reads it from a file or PAYER_OIDC_CLIENT_SECRET. */
  oidcClientSecret?: string;
  oidcClientSecretFile?: string;
  oidcRoleClaim?: string;
}

/** Sign-in with the identity provider, checked: where it is, who serve is to it, and where it sends the browser back. */
export interface OidcSettings {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** `--public-url` + the callback's path: the redirect URI registered at the provider. */
  redirectUri: string;
  roleClaim?: string;
}

/**
 * The identity provider's settings, or none when `--oidc-issuer` is not given. Every problem is said at once, naming
 * its flag (exit 2): an issuer that is not https (http only to loopback), no client id or secret, no `--public-url`
 * for the provider to send the browser back to.
 */
export function resolveOidc(
  given: OidcInput & { publicUrl?: string | undefined },
  env: NodeJS.ProcessEnv,
  cwd: string,
): OidcSettings | undefined {
  if (given.oidcIssuer === undefined) {
    const stray = (['oidcClientId', 'oidcClientSecretFile', 'oidcRoleClaim'] as const).find((k) => given[k]);
    if (stray !== undefined)
      throw new ConfigError(`--${OIDC_OPTIONS[stray].flag}: needs --oidc-issuer URL, the identity provider`, 'E_USAGE');
    return undefined;
  }
  const problems: string[] = [];
  const issuer = issuerUrl(given.oidcIssuer);
  if (typeof issuer === 'string') problems.push(`--oidc-issuer: ${issuer}`);
  const clientId = given.oidcClientId ?? (env[CLIENT_ID_ENV] || undefined);
  if (clientId === undefined)
    problems.push(`--oidc-client-id: give the client id the identity provider gave serve (or set ${CLIENT_ID_ENV})`);
  let clientSecret = given.oidcClientSecret ?? (env[CLIENT_SECRET_ENV] || undefined);
  if (given.oidcClientSecretFile !== undefined) {
    try {
      clientSecret = readSecretFile(given.oidcClientSecretFile, '--oidc-client-secret-file', cwd);
    } catch (error) {
      problems.push((error as Error).message);
    }
  } else if (clientSecret === undefined)
    problems.push(`--oidc-client-secret-file: give the file holding the client secret (or set ${CLIENT_SECRET_ENV})`);
  if (given.publicUrl === undefined)
    problems.push(
      `--public-url: the identity provider sends the browser back to serve's address (its ${OIDC_CALLBACK_PATH}): give --public-url URL`,
    );
  const roleClaim = given.oidcRoleClaim?.trim();
  if (roleClaim === '') problems.push('--oidc-role-claim: name the claim, such as roles or groups');
  if (problems.length > 0) throw new ConfigError(problems.join('\n'), 'E_USAGE');
  return {
    issuer: issuer as URL,
    clientId: clientId!,
    clientSecret: clientSecret!,
    redirectUri: `${given.publicUrl!.replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`,
    ...(roleClaim === undefined ? {} : { roleClaim }),
  };
}

/** The issuer as a URL, or what is wrong with it. */
function issuerUrl(given: string): URL | string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return `${given} is not a URL: give the provider's issuer, such as https://login.example.com`;
  }
  if (url.username || url.password || url.search || url.hash)
    return `${url.origin}: give the issuer alone, with no user, password, query or fragment`;
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url;
  return `${url.origin}: sign-in goes through it, so it must be https:// (http only to this machine)`;
}
