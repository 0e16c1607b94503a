import type { BareMetalHostStatus, Condition, ProvisioningState } from '../api/index.ts';
import type { HostObserver } from '../actors/host/index.ts';

export interface HostSummary {
  state: ProvisioningState;
  operationalStatus: BareMetalHostStatus['operationalStatus'];
  errorType: string;
  poweredOn: boolean;
  /** The status's own array (not a copy): introspection lists it on request. */
  conditions?: readonly Condition[] | undefined;
}

// Live per-state counts and a small summary per host, fed by the host actors as they change
// state: what the demo's progress line, its end check and the benchmarks read.
export class FleetStats implements HostObserver {
  readonly byState = new Map<ProvisioningState, number>();
  readonly hosts = new Map<string, HostSummary>();
  transitions = 0;
  goneCount = 0;
  warnings = 0;
  // The newest warnings, for a live view; logs keep the full record.
  readonly recentWarnings: Array<{ at: number; host: string; reason: string; message: string }> = [];
  private listeners: Array<(key: string) => void> = [];
  // Observers that see every report after the stats (the node's BMO metrics).
  private followers: HostObserver[] = [];

  stateChanged(key: string, from: ProvisioningState | null, to: ProvisioningState, status: BareMetalHostStatus): void {
    if (from !== null) this.byState.set(from, (this.byState.get(from) ?? 1) - 1);
    this.byState.set(to, (this.byState.get(to) ?? 0) + 1);
    if (from !== null) this.transitions += 1;
    this.hosts.set(key, { state: to, operationalStatus: status.operationalStatus, errorType: status.errorType ?? '', poweredOn: status.poweredOn, conditions: status.conditions });
    this.notify(key);
    for (const f of this.followers) f.stateChanged(key, from, to, status);
  }

  // Error and power changes do not change the state but matter to the end check.
  statusChanged(key: string, status: BareMetalHostStatus): void {
    for (const f of this.followers) f.statusChanged(key, status);
    const summary = this.hosts.get(key);
    if (!summary) return;
    const changed = summary.errorType !== (status.errorType ?? '') || summary.poweredOn !== status.poweredOn;
    summary.operationalStatus = status.operationalStatus;
    summary.errorType = status.errorType ?? '';
    summary.poweredOn = status.poweredOn;
    summary.conditions = status.conditions;
    if (changed) this.notify(key);
  }

  warning(host: string, reason: string, message: string): void {
    this.warnings += 1;
    this.recentWarnings.push({ at: Date.now(), host, reason, message });
    if (this.recentWarnings.length > 5) this.recentWarnings.shift();
    for (const f of this.followers) f.warning(host, reason, message);
  }

  gone(key: string): void {
    for (const f of this.followers) f.gone(key);
    const summary = this.hosts.get(key);
    if (!summary) return;
    this.byState.set(summary.state, (this.byState.get(summary.state) ?? 1) - 1);
    this.hosts.delete(key);
    this.goneCount += 1;
    this.notify(key);
  }

  count(state: ProvisioningState): number {
    return this.byState.get(state) ?? 0;
  }

  /** Passes every report on to `observer` as well, until the returned function is called. */
  follow(observer: HostObserver): () => void {
    this.followers.push(observer);
    return () => {
      this.followers = this.followers.filter((f) => f !== observer);
    };
  }

  /** Called with the key of each host whose summary changed (state, error or power). */
  onChange(listener: (key: string) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  private notify(key: string): void {
    for (const l of this.listeners) l(key);
  }
}
