// The Payer API sandbox as a library: what tests, benchmarks and `run --sandbox` import.
export { startSandbox, type SandboxHandle } from './startSandbox.js';
export {
  resolveSandboxOptions,
  type SandboxOptions,
} from '../options/sandboxOptions.js';
export type { SandboxStats } from './stats.js';
export { FAULT_KINDS } from './faults.js';
