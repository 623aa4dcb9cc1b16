// The library entry: run(), runStatus() and the sandbox for callers and tests that do not go through the CLI.
export { run, type RunContext, type RunInput } from './pipeline/run.js';
export { runStatus, type StatusInput } from './status/runStatus.js';
export type { StatusSummary, PayerStatus } from './status/payerStatus.js';
export { resolveRunOptions, type RunOptions } from './options/resolve.js';
export { RUN_OPTIONS } from './options/runOptions.js';
export type { Summary } from './output/results.js';
export { startSandbox } from './sandbox/index.js';
export * from './core/errors.js';
export * from './core/types.js';
export * as schema from './core/schemas.js';
