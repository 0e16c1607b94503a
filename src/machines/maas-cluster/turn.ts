import { MAAS_CONDITIONS, nextDelay } from '../../api/index.ts';
import type { MaasClusterStatus } from '../../api/index.ts';
import type { ConditionValue } from '../maas-machine/index.ts';
import { sameJson, setCondition, summarise } from '../maas-machine/index.ts';
import type { DnsCall, MaasClusterEffect, MaasClusterPhase, MaasClusterState, MaasClusterStep } from './types.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// One step's scratchpad for a MaasCluster (see maas-machine/turn.ts).
export class Turn {
  readonly s: Mutable<MaasClusterState>;
  readonly effects: MaasClusterEffect[] = [];
  private requeueMs: number | null = null;

  constructor(private readonly before: MaasClusterState, readonly now: number) {
    this.s = { ...before };
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

  emit(severity: 'Normal' | 'Warning', reason: string, message: string): void {
    this.effects.push({ type: 'event', severity, reason, message });
  }

  requeue(ms: number): void {
    const at = Math.max(0, ms);
    this.requeueMs = this.requeueMs === null ? at : Math.min(this.requeueMs, at);
  }

  dns(call: DnsCall): void {
    this.s.seq += 1;
    this.s.inFlight = { op: call.op, seq: this.s.seq, fqdn: call.op === 'find' || call.op === 'create' ? call.fqdn : null };
    this.effects.push({ type: 'dns', seq: this.s.seq, call });
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

  finish(): MaasClusterStep {
    const effects = [...this.effects];
    // Written when the step changed it, as every kind's Turn: whether the store already holds it,
    // and retrying a write that failed, are the actor's status writer's (one rule for all kinds).
    if (!sameJson(this.s.status, this.before.status)) effects.push({ type: 'writeStatus', status: this.s.status });
    if (this.requeueMs !== null) effects.push({ type: 'requeue', afterMs: this.requeueMs });
    return { state: this.s, effects };
  }
}
