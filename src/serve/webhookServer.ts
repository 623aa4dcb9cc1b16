import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { TrustedProxy } from '../options/serveOptions.js';
import { type Limit, limitConnections, limitRequests } from './clientLimits.js';
import { EventLog } from './EventLog.js';
import type { ServeMetrics } from './metrics.js';
import {
  DELIVERY_HEADER,
  deliveryIdOf,
  isTestDelivery,
  parseEvent,
  SIGNATURE_HEADER,
  signatureValid,
  TEST_HEADER,
} from './webhookEvent.js';

export interface WebhookServerSpec {
  /** Where deliveries are posted (`/webhooks`). */
  path: string;
  /** Off without a secret: the path is then not served at all. */
  webhooks: boolean;
  secret: string;
  log: EventLog;
  metrics: ServeMetrics;
  /** Largest body taken, in bytes; a larger one is refused 413. */
  bodyLimit: number;
  /** A body not received whole within this many milliseconds is refused 408. */
  bodyTimeoutMs: number;
  /** The proxies whose forwarded client address is believed (`--trust-proxy`); none when undefined. */
  trustProxy?: TrustedProxy | undefined;
  /** Called after an event is recorded: the worker takes it at once. */
  onRecorded: () => void;
  /** What /healthz says besides `ok`. */
  health: () => Record<string, unknown>;
  /** One line for the operator (stderr): never a body, a header or a payer's value. */
  say: (line: string) => void;
  /**
   * The web page, when the operator set a password for it: its routes, in a scope of their own, and the security
   * headers every answer of the server then carries (a 404 too).
   */
  web?: { routes: (scope: FastifyInstance) => Promise<void>; headers: Record<string, string> };
  /**
   * The payers' own page, when serve has a public address: its routes, the requests that are its own (`owns`), and
   * the headers each of its answers carries instead of the team page's.
   */
  payer?: {
    routes: (scope: FastifyInstance) => Promise<void>;
    headers: Record<string, string>;
    owns: (url: string) => boolean;
  };
}

/** A refusal as data, thrown from the body reader to Fastify, which answers with its status code. */
class Refused extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The HTTP side of `serve`: POST `path` takes the service's webhooks, GET /healthz answers the supervisor, GET /metrics
 * Prometheus. A delivery is answered 2xx only once its event is on disk; one refused changes nothing.
 */
export function webhookServer(spec: WebhookServerSpec): FastifyInstance {
  // Node's own limits are off under Fastify unless set: a client that sends its headers or body slowly would hold a
  // connection for ever. The body's own deadline (408) is the webhook route's.
  const app = Fastify({
    logger: false,
    bodyLimit: spec.bodyLimit,
    return503OnClosing: true,
    // A connection with nothing sent or received for this long is closed.
    connectionTimeout: 30_000,
    // A whole request, a large upload on a slow line included.
    requestTimeout: 300_000,
    // Longer than a proxy's own idle keep-alive (nginx's 60 s), so that serve never closes a connection the proxy is
    // about to send on; idle connections are the first closed when the connection caps need room.
    keepAliveTimeout: 65_000,
    // Headers not whole within 10 s end the connection; Node looks every second rather than every 30.
    http: { headersTimeout: 10_000, connectionsCheckingInterval: 1000 },
    // X-Forwarded-For and -Proto only from the proxies the operator named; from anyone else they are ignored.
    ...(spec.trustProxy === undefined ? {} : { trustProxy: spec.trustProxy }),
  });
  const limited = (limit: Limit) => spec.metrics.limited.inc({ limit });
  limitConnections(app.server, spec.trustProxy, limited);
  limitRequests(app, limited);
  app.get('/healthz', async () => ({ ok: true, ...spec.health() }));
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', spec.metrics.registry.contentType);
    return spec.metrics.registry.metrics();
  });
  if (spec.webhooks) void app.register(async (scope) => webhookRoute(scope, spec));
  const { web, payer } = spec;
  if (web !== undefined || payer !== undefined)
    app.addHook('onSend', async (request, reply, payload) => {
      const headers = payer?.owns(request.url) ? payer.headers : web?.headers;
      for (const [name, value] of Object.entries(headers ?? {})) reply.header(name, value);
      return payload;
    });
  if (web !== undefined) void app.register(web.routes);
  if (payer !== undefined) void app.register(payer.routes);
  return app;
}

/** POST `path`, in a scope of its own: its body reader and its refusals are for webhooks only. */
function webhookRoute(scope: FastifyInstance, spec: WebhookServerSpec): void {
  // The signature is over the raw bytes: every body is taken whole as a Buffer, whatever its content type.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, payload, done) => {
    readBody(payload, spec.bodyLimit, spec.bodyTimeoutMs).then(
      (body) => done(null, body),
      (error: Error) => done(error, undefined),
    );
  });
  scope.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    const refused = error instanceof Refused ? error : undefined;
    const status = refused?.statusCode ?? (error.statusCode === 413 ? 413 : (error.statusCode ?? 500));
    const reason = refused?.reason ?? (status === 413 ? 'too-large' : status >= 500 ? 'unavailable' : 'bad-request');
    spec.metrics.webhooks.inc({ result: reason });
    spec.say(`webhook refused (${status}): ${refused?.message ?? error.message}`);
    // The rest of a refused body is not read: the connection ends with the answer.
    void reply
      .header('connection', 'close')
      .code(status)
      .send({ error: refused?.message ?? error.message });
  });
  scope.post(spec.path, async (request, reply) => receive(spec, request.body, request.headers, reply));
}

async function receive(
  spec: WebhookServerSpec,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
  reply: FastifyReply,
): Promise<unknown> {
  const raw = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  const header = headers[SIGNATURE_HEADER];
  if (!signatureValid(raw, typeof header === 'string' ? header : undefined, spec.secret))
    throw new Refused(401, 'signature', `a missing or wrong ${SIGNATURE_HEADER}`);
  const parsed = parseEvent(raw);
  if ('problem' in parsed) throw new Refused(400, 'not-an-event', parsed.problem);
  if (isTestDelivery(headers[TEST_HEADER])) {
    // Placeholder data, signed like any delivery: acknowledged and said, acted on never.
    spec.metrics.webhooks.inc({ result: 'test' });
    spec.say(`serve: a test delivery from the service (${parsed.event.event}): signature good; nothing changed`);
    return reply.code(200).send({ received: true, test: true });
  }
  let result: 'recorded' | 'duplicate';
  try {
    // A retry of a delivery is known by its delivery id; a delivery without one, by its body.
    const id = deliveryIdOf(headers[DELIVERY_HEADER]) ?? EventLog.deliveryId(raw);
    result = await spec.log.record(parsed.event, id);
  } catch (error) {
    // Not on disk, so not answered 2xx: the service delivers it again.
    throw new Refused(503, 'unavailable', `the event could not be recorded (${(error as Error).message})`);
  }
  spec.metrics.webhooks.inc({ result });
  if (result === 'recorded') spec.onRecorded();
  return reply.code(200).send({ received: true, ...(result === 'duplicate' ? { duplicate: true } : {}) });
}

/** The whole body, or a refusal: 413 past `limit` bytes, 408 when it has not all come within `timeoutMs`. */
function readBody(stream: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(stream.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit)
      return reject(new Refused(413, 'too-large', `a body of ${declared} bytes (at most ${limit})`));
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Refused) => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(
      () => finish(new Refused(408, 'too-slow', `the body did not arrive within ${timeoutMs} ms`)),
      timeoutMs,
    );
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(new Refused(413, 'too-large', `a body over ${limit} bytes`));
      else chunks.push(chunk);
    });
    stream.once('end', () => finish());
    stream.once('error', (error) => finish(new Refused(400, 'bad-request', error.message)));
  });
}
