// The Payer API sandbox as a library: what tests, benchmarks and `run --sandbox` import.
export { startSandbox, type SandboxHandle } from './startSandbox.js';
export { resolveSandboxOptions, sandboxOptionsSchema, DUPLICATE_MODES, type DuplicateMode, type SandboxOptions, type ResolvedSandboxOptions } from './options.js';
export type { SandboxStats } from './stats.js';
export type { StoredPayer } from './payerStore.js';
export { ROUTES, type RouteName, type RouteRef } from './routes.js';
export { FAULT_KINDS, type FaultKind } from './faults.js';
export { SCRIPT_FAULTS, type ScriptStep } from './script.js';
