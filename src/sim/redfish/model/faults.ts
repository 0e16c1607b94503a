import { z } from 'zod';

// Per-system faults, settable from the handle (system.setFaults) and from `--fault id=kind`.
export const SimFaultsSchema = z.object({
  /** Every credential for this system is refused (401), sessions included. */
  refuseCredentials: z.boolean().default(false),
  /** Added before every answer about this system. */
  latencyMs: z.number().int().min(0).max(600_000).default(0),
  /** Reset is accepted (204) but the power state never changes and nothing boots. */
  powerStuck: z.boolean().default(false),
  /** Every call about this system answers 500. */
  serverError: z.boolean().default(false),
});
export type SimFaults = z.infer<typeof SimFaultsSchema>;

export const FAULT_KINDS = ['refuse-credentials', 'slow', 'power-stuck', '5xx'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** `slow:250` → latencyMs 250 (plain `slow` is 1000 ms); undefined for an unknown kind. */
export function faultFromKind(spec: string): Partial<SimFaults> | undefined {
  const [kind, arg] = spec.split(':', 2);
  switch (kind) {
    case 'refuse-credentials': return { refuseCredentials: true };
    case 'power-stuck': return { powerStuck: true };
    case '5xx': return { serverError: true };
    case 'slow': {
      const ms = arg === undefined ? 1000 : Number(arg);
      return Number.isInteger(ms) && ms >= 0 ? { latencyMs: ms } : undefined;
    }
    default: return undefined;
  }
}
