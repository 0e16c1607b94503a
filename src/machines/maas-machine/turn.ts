import { MAAS_CONDITIONS, nextDelay } from '../../api/index.ts';
import type { MaasMachineStatus } from '../../api/index.ts';
import type { ConditionValue } from './conditions.ts';
import { removeCondition, setCondition, summarise } from './conditions.ts';
import { sameJson } from './status.ts';
import type { MaasCall, MaasMachineEffect, MaasMachinePhase, MaasMachineState, MaasMachineStep } from './types.ts';
import { isControlPlane } from './world.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// One step's scratchpad: a mutable copy of the state plus the effects it produces. Handlers read
// and write it; finish() turns it back into an immutable step, with one status write when the
// status changed and one requeue (the soonest asked for).
export class Turn {
  readonly s: Mutable<MaasMachineState>;
  readonly effects: MaasMachineEffect[] = [];
  private requeueMs: number | null = null;

  constructor(private readonly before: MaasMachineState, readonly now: number) {
    this.s = { ...before };
  }

  get phase(): MaasMachinePhase {
    return this.s.phase;
  }

  get controlPlane(): boolean {
    return isControlPlane(this.s.object, this.s.world);
  }

  get deleting(): boolean {
    return this.s.object.metadata.deletionTimestamp !== undefined;
  }

  transition(next: MaasMachinePhase): void {
    this.s.phase = next;
    this.s.gone = next === 'gone';
  }

  setStatus(patch: Partial<MaasMachineStatus>): void {
    this.s.status = { ...this.s.status, ...patch };
  }

  /** MachineDeployed, and Ready as its summary (with DNSAttached on a control-plane machine). */
  deployed(status: ConditionValue['status'], reason: string, message?: string): void {
    this.condition(MAAS_CONDITIONS.MachineDeployed, { status, reason, ...(message ? { message } : {}) });
  }

  dnsAttached(status: ConditionValue['status'], reason: string, message?: string): void {
    this.setStatus({ dnsAttached: status === 'True' });
    this.condition(MAAS_CONDITIONS.DNSAttached, { status, reason, ...(message ? { message } : {}) });
  }

  condition(type: string, value: ConditionValue): void {
    const conditions = setCondition(this.s.status.conditions, type, value, this.now);
    this.setStatus({ conditions: summarise(conditions, [MAAS_CONDITIONS.MachineDeployed, MAAS_CONDITIONS.DNSAttached], this.now) });
  }

  dropCondition(type: string): void {
    if (!this.s.status.conditions?.some((c) => c.type === type)) return;
    this.setStatus({ conditions: removeCondition(this.s.status.conditions, type) });
  }

  emit(severity: 'Normal' | 'Warning', reason: string, message: string): void {
    this.effects.push({ type: 'event', severity, reason, message });
  }

  requeue(ms: number): void {
    const at = Math.max(0, ms);
    this.requeueMs = this.requeueMs === null ? at : Math.min(this.requeueMs, at);
  }

  call(call: MaasCall): void {
    this.s.seq += 1;
    this.s.inFlight = { op: call.op, seq: this.s.seq };
    this.effects.push({ type: 'call', seq: this.s.seq, call });
  }

  lookupDns(fqdn: string): void {
    this.s.seq += 1;
    this.s.inFlight = { op: 'dnsLookup', seq: this.s.seq };
    this.effects.push({ type: 'dnsLookup', seq: this.s.seq, fqdn });
  }

  /** True when a slot for `op` is held; otherwise asks for one (once) and returns false. */
  ensureSlot(op: 'deploy' | 'release'): boolean {
    const want = op === 'deploy' ? 'provision' : 'deprovision';
    const slot = this.s.slot;
    if (slot.phase === 'held') return true;
    if (slot.phase === 'waiting' && slot.op === want) return false;
    if (slot.phase === 'waiting') this.releaseSlot();
    this.s.slot = { phase: 'waiting', op: want, since: this.now };
    this.effects.push({ type: 'requestSlot', op });
    return false;
  }

  releaseSlot(): void {
    if (this.s.slot.phase === 'none') return;
    this.s.slot = { phase: 'none' };
    this.effects.push({ type: 'releaseSlot' });
  }

  /** Exponential backoff before the next backend call. */
  backoff(): void {
    this.s.attempts += 1;
    // No jitter: a pure machine takes no randomness, and the actor's requeue spreads hosts anyway.
    const policy = { initialMs: this.s.config.backoffBaseMs, maxMs: this.s.config.backoffMaxMs, factor: 2, jitter: 'none' } as const;
    const ms = nextDelay(policy, this.s.attempts, () => 0);
    this.s.retryAt = this.now + ms;
    this.requeue(ms);
  }

  /** The view goes stale; the next look at MAAS is due in `ms`. */
  pollIn(ms: number): void {
    this.s.fresh = false;
    this.s.nextPollAt = this.now + ms;
    this.s.dnsIps = null;
    this.requeue(ms);
  }

  finish(): MaasMachineStep {
    const effects = [...this.effects];
    // Written when the step changed it, as every kind's Turn. Not "when it differs from the object":
    // the status the cluster reads is the one this machine last decided, not re-asserted on every
    // wake-up. The actor's status writer drops it when the store already holds it, and retries it.
    if (!sameJson(this.s.status, this.before.status)) effects.push({ type: 'writeStatus', status: this.s.status });
    if (this.requeueMs !== null) effects.push({ type: 'requeue', afterMs: this.requeueMs });
    return { state: this.s, effects };
  }
}
