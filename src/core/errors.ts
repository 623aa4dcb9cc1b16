// Typed errors with a stable `code`. Messages are written for the person who reads them and never
// carry a key or a personal value.

export type ErrorCode =
  | 'E_USAGE' // bad flags or option values
  | 'E_CONFIG' // missing key, bad base URL, refused http
  | 'E_INPUT' // unreadable, unsupported or unparseable input file
  | 'E_LOCKED' // another run holds the service and key, or the journal
  | 'E_API' // a call failed for good
  | 'E_ABORTED'; // the run stopped: key rejected, API down, interrupted

export class PayerOnboardError extends Error {
  readonly code: ErrorCode;
  /** The process exit code this error means when it ends a command: 2 could not start (nothing sent), 3 stopped. */
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, exitCode: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}

export class ConfigError extends PayerOnboardError {
  constructor(message: string, code: 'E_CONFIG' | 'E_USAGE' = 'E_CONFIG') {
    super(code, message, 2);
  }
}

/** A whole file that cannot be used: named by file and, where known, line and column. */
export class InputError extends PayerOnboardError {
  readonly source: string;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(source: string, message: string, where: { line?: number; column?: number; cause?: unknown } = {}) {
    const at =
      where.line === undefined ? '' : where.column === undefined ? `:${where.line}` : `:${where.line}:${where.column}`;
    super('E_INPUT', `${source}${at}: ${message}`, 2, { cause: where.cause });
    this.source = source;
    this.line = where.line;
    this.column = where.column;
  }
}

export class LockedError extends PayerOnboardError {
  constructor(message: string) {
    super('E_LOCKED', message, 2);
  }
}

export class AbortedError extends PayerOnboardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_ABORTED', message, 3, options);
  }
}
