import { MAAS_CONDITIONS, nextDelay } from '../../api/index.ts';
import type { MaasMachineStatus } from '../../api/index.ts';
import type { ConditionValue } from './conditions.ts';
import { removeCondition, setCondition, summarise } from './conditions.ts';
import { MachineTurn } from '../turn.ts';
import type { MaasCall, MaasMachineEffect, MaasMachinePhase, MaasMachineState } from './types.ts';
import { isControlPlane } from './world.ts';

// A MaasMachine step's scratchpad (see ../turn.ts). The status written is the one this machine
// decided (state.status), not re-asserted from the object on every wake-up.
export class Turn extends MachineTurn<MaasMachineState, MaasMachineEffect, MaasMachineStatus> {
  protected statusOf(state: MaasMachineState): MaasMachineStatus {
    return state.status;
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

  /**
   * Persists the MAAS machine's ids on the object (spec.providerID, systemID, failureDomain), and
   * takes them as written: the next look at MAAS writes them again only if a later observation
   * of the object still lacks them (a write that never landed).
   */
  writeIds(patch: { readonly providerID: string; readonly systemID: string; readonly failureDomain?: string }): void {
    this.effects.push({ type: 'writeSpec', patch });
    this.s.object = { ...this.s.object, spec: { ...this.s.object.spec, ...patch } };
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
    // The acquire adopts a live grant an earlier incarnation left in this name.
    this.s.grantInherited = false;
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
}
