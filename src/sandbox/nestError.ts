// Error bodies in the shape the real API (NestJS) uses: { statusCode, message, error }.

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface NestErrorBody {
  statusCode: number;
  message: string | string[];
  error?: string;
}

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

export function nestError(status: number, message?: string | string[]): NestErrorBody {
  // NestJS answers an unhandled exception with exactly this, without `error`.
  if (status === 500 && message === undefined) return { statusCode: 500, message: 'Internal server error' };
  return { statusCode: status, message: message ?? reasonPhrase(status), error: reasonPhrase(status) };
}

/** The body NestJS's ThrottlerGuard sends with a 429. */
export const throttled = (): NestErrorBody => nestError(429, 'ThrottlerException: Too Many Requests');
