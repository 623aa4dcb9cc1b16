import type { Rng } from './rng.js';

// Random faults. Each request that gets this far takes exactly one draw from the seeded PRNG and the
// rates are laid end to end on [0, 1): the same seed and request order give the same faults, and
// changing one rate does not reshuffle which requests the others hit more than it must.

export const FAULT_KINDS = ['429', '500', '503', 'reset', 'commit500', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRates {
  fault429: number;
  fault500: number;
  fault503: number;
  faultReset: number;
  faultCommit500: number;
  faultSlow: number;
}

export function drawFault(rng: Rng, rates: FaultRates): FaultKind | undefined {
  const u = rng.next();
  let edge = 0;
  const bands: Array<[FaultKind, number]> = [
    ['429', rates.fault429],
    ['500', rates.fault500],
    ['503', rates.fault503],
    ['reset', rates.faultReset],
    ['commit500', rates.faultCommit500],
    ['slow', rates.faultSlow],
  ];
  for (const [kind, rate] of bands) {
    edge += rate;
    if (u < edge) return kind;
  }
  return undefined;
}
