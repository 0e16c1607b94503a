import { MAAS_CONDITIONS, nextDelay } from '../../api/index.ts';
import type { MaasClusterStatus } from '../../api/index.ts';
import type { ConditionValue } from '../maas-machine/index.ts';
import { setCondition, summarise } from '../maas-machine/index.ts';
import { MachineTurn } from '../turn.ts';
import { successResetsBackoff } from '../retry-reads.ts';
import type { DnsCall, IpCall, MaasClusterEffect, MaasClusterPhase, MaasClusterState } from './types.ts';

// The reads made before a DNS create or VIP reserve is retried (retry-reads.ts).
const READS: ReadonlySet<DnsCall['op'] | IpCall['op']> = new Set(['find', 'findVip', 'interfaces']);

// A MaasCluster step's scratchpad (see ../turn.ts).
export class Turn extends MachineTurn<MaasClusterState, MaasClusterEffect, MaasClusterStatus> {
  protected statusOf(state: MaasClusterState): MaasClusterStatus {
    return state.status;
  }

  get phase(): MaasClusterPhase {
    return this.s.phase;
  }

  transition(next: MaasClusterPhase): void {
    this.s.phase = next;
    this.s.gone = next === 'gone';
  }

  setStatus(patch: Partial<MaasClusterStatus>): void {
    this.s.status = { ...this.s.status, ...patch };
  }

  /** Sets one condition; Ready summarises LoadBalancerReady and APIServerAvailable (CAPMAAS). */
  condition(type: string, value: ConditionValue): void {
    const conditions = setCondition(this.s.status.conditions, type, value, this.now);
    this.setStatus({ conditions: summarise(conditions, [MAAS_CONDITIONS.LoadBalancerReady, MAAS_CONDITIONS.APIServerAvailable], this.now) });
  }

  dns(call: DnsCall): void {
    this.s.seq += 1;
    this.s.inFlight = { op: call.op, seq: this.s.seq, fqdn: call.op === 'find' || call.op === 'create' ? call.fqdn : null };
    this.effects.push({ type: 'dns', seq: this.s.seq, call });
  }

  ip(call: IpCall, nicsKey?: string): void {
    this.s.seq += 1;
    this.s.inFlight = { op: call.op, seq: this.s.seq, fqdn: call.op === 'findVip' ? call.fqdn : null, ...(call.op === 'interfaces' ? { systemId: call.systemId, nicsKey } : {}) };
    this.effects.push({ type: 'ip', seq: this.s.seq, call });
  }

  dropCondition(type: string): void {
    const conditions = this.s.status.conditions;
    if (!conditions?.some((c) => c.type === type)) return;
    this.setStatus({ conditions: summarise(conditions.filter((c) => c.type !== type), [MAAS_CONDITIONS.LoadBalancerReady, MAAS_CONDITIONS.APIServerAvailable], this.now) });
  }

  // A success ends the error; it restarts the backoff unless it is a read before a failing call.
  succeeded(op: DnsCall['op'] | IpCall['op']): void {
    this.s.lastError = null;
    if (!successResetsBackoff(op, this.s.failedOp, READS)) return;
    this.s.attempts = 0;
    this.s.failedOp = null;
  }

  failed(op: DnsCall['op'] | IpCall['op'], message: string): void {
    this.s.failedOp = op;
    this.backoff(message);
  }

  backoff(message: string): void {
    this.s.attempts += 1;
    this.s.lastError = message;
    // No jitter, as MaasMachine's: a pure machine takes no randomness.
    const policy = { initialMs: this.s.config.backoffBaseMs, maxMs: this.s.config.backoffMaxMs, factor: 2, jitter: 'none' } as const;
    const ms = nextDelay(policy, this.s.attempts, () => 0);
    this.s.retryAt = this.now + ms;
    this.requeue(ms);
  }
}
