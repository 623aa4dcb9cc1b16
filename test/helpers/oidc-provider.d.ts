// The little of oidc-provider the tests use (it ships no types of its own): a provider configured with its clients,
// the claims its scopes give, the accounts it finds, its cookie keys, lifetimes and signing keys; its request handler.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims: () => Promise<Record<string, unknown>>;
  }

  export interface Configuration {
    clients: Array<Record<string, unknown>>;
    claims: Record<string, string[]>;
    findAccount: (ctx: unknown, sub: string) => Account | undefined;
    cookies: { keys: string[] };
    ttl: Record<string, number>;
    jwks: { keys: Array<Record<string, unknown>> };
  }

  export class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
