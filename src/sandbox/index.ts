// The Payer API sandbox as a library: what tests, benchmarks and `run --sandbox` import.
export { startSandbox, type SandboxHandle } from './startSandbox.js';
export {
  resolveSandboxOptions,
  sandboxOptionsSchema,
  DUPLICATE_MODES,
  IDEMPOTENCY_MODES,
  KYC_GATES,
  type DuplicateMode,
  type IdempotencyMode,
  type KycGate,
  type SandboxOptions,
  type ResolvedSandboxOptions,
} from '../options/sandboxOptions.js';
export type { SandboxStats } from './stats.js';
export { KYC_STATUSES, type KycStatus, type StoredPayer } from './payers.js';
export { ACCOUNT_STATUSES, type AccountStatus } from './bankAccounts.js';
export { ROUTES, ROUTE_NAMES, type RouteName, type RouteRef } from './routes.js';
export { FAULT_KINDS, type FaultKind } from './faults.js';
export { SCRIPT_FAULTS, type ScriptStep } from './routes.js';
