import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveOidc } from '../../src/options/oidcOptions.js';
import { claimedRole, maskedEmail } from '../../src/web/oidcSignIn.js';
import { tempDir } from '../helpers/tempDir.js';

// What serve makes of the identity provider's options, and of the claims it answers with.

const GIVEN = { oidcIssuer: 'https://login.example.com/realms/finance', publicUrl: 'https://payers.example.com/' };
const ENV = { PAYER_OIDC_CLIENT_ID: 'payer-onboard', PAYER_OIDC_CLIENT_SECRET: 'from-the-environment' };

/** The problem a resolution throws, as the person reads it; or the settings. */
function tried(given: Parameters<typeof resolveOidc>[0], env: NodeJS.ProcessEnv = ENV, cwd = '/') {
  try {
    return resolveOidc(given, env, cwd);
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
}

describe('the identity provider options', () => {
  it('are off without --oidc-issuer, and its other flags alone are refused naming it', () => {
    expect(tried({ publicUrl: GIVEN.publicUrl })).toBeUndefined();
    expect(tried({ oidcRoleClaim: 'groups' })).toEqual({
      code: 'E_USAGE',
      message: '--oidc-role-claim: needs --oidc-issuer URL, the identity provider',
    });
  });

  it('take the client id and secret from the environment; the redirect is on --public-url', () => {
    expect(tried(GIVEN)).toEqual({
      issuer: new URL(GIVEN.oidcIssuer),
      clientId: 'payer-onboard',
      clientSecret: 'from-the-environment',
      redirectUri: 'https://payers.example.com/login/oidc/callback',
    });
  });

  it('take the secret from its file over the environment, and a flag over the environment', () => {
    const tmp = tempDir();
    writeFileSync(tmp.path('secret'), 'from-the-file\n');
    const settings = tried(
      { ...GIVEN, oidcClientId: 'from-the-flag', oidcClientSecretFile: 'secret', oidcRoleClaim: ' roles ' },
      ENV,
      tmp.dir,
    );
    expect(settings).toMatchObject({ clientId: 'from-the-flag', clientSecret: 'from-the-file', roleClaim: 'roles' });
  });

  it('say every problem at once, each naming its flag: no --public-url among them', () => {
    expect(tried({ oidcIssuer: 'http://login.example.com', oidcClientSecretFile: 'missing' }, {})).toEqual({
      code: 'E_USAGE',
      message: [
        '--oidc-issuer: http://login.example.com: sign-in goes through it, so it must be https:// (http only to this machine)',
        '--oidc-client-id: give the client id the identity provider gave serve (or set PAYER_OIDC_CLIENT_ID)',
        '--oidc-client-secret-file: cannot read missing (ENOENT)',
        "--public-url: the identity provider sends the browser back to serve's address (its /login/oidc/callback): give --public-url URL",
      ].join('\n'),
    });
    expect(tried({ ...GIVEN, oidcIssuer: 'http://127.0.0.1:4000' })).toMatchObject({
      issuer: new URL('http://127.0.0.1:4000'),
    });
    expect(tried({ ...GIVEN, oidcIssuer: 'login.example.com' })).toMatchObject({
      message:
        "--oidc-issuer: login.example.com is not a URL: give the provider's issuer, such as https://login.example.com",
    });
  });
});

describe('the claims', () => {
  it('name a role by a string or a list, the highest winning; other values name none', () => {
    expect(claimedRole('approver')).toBe('approver');
    expect(claimedRole(['Viewer', 'staff', 'preparer'])).toBe('preparer');
    expect(claimedRole(['admin', 'viewer'])).toBe('admin');
    expect(claimedRole(['staff', 3, null])).toBeUndefined();
    expect(claimedRole(undefined)).toBeUndefined();
    expect(claimedRole({ role: 'admin' })).toBeUndefined();
  });

  it('leave of an e-mail address only its domain in the audit trail', () => {
    expect(maskedEmail('ada.byron@finance.example.com')).toBe('***@finance.example.com');
    expect(maskedEmail('no-at-sign')).toBe('***');
  });
});
