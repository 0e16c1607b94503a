import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { BareMetalHostStatus } from '../../api/index.ts';
import { BMH_KIND } from '../../api/index.ts';
import type { HostStatusObserver } from '../../actors/host/index.ts';
import type { MachineChange } from '../../actors/machine/index.ts';
import type { SlotOperation } from '../../machines/bmh/index.ts';
import type { ActorRegistry } from '../../actors/runtime/index.ts';
import type { HostMemory, HostObservation, MetricIncrement, TimedOperation } from './bmo-observations.ts';
import { observeHost } from './bmo-observations.ts';
import type { HostStepDelta, SeenActor } from './host-steps.ts';
import { hostStepDeltas } from './host-steps.ts';

// Every metric the baremetal-operator defines (internal/controller/metal3.io/metrics.go), with
// its name, help, labels and buckets, so dashboards and alerts written for BMO keep working.
// Names are BMO's even where they are odd (metal3_delayed__provisioning_total: two underscores).

const HOST = ['namespace', 'host'] as const;

/** Go's prometheus.DefBuckets: BMO gives the register histogram no buckets of its own. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export const SLOW_OPERATION_BUCKETS: readonly number[] = [30, 90, 180, 360, 720, 1440];

interface CounterSpec {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
}

interface HistogramSpec extends CounterSpec {
  readonly buckets: readonly number[];
}

// What metalfleet counts in each (the BMO event it stands for is in BMO's help):
//  reconcile, reconcileError  one host actor step / one host actor crash (host-steps.ts)
//  credentials*, hostError    a register or other call failing, read off errorCount (bmo-observations.ts)
//  delayed*                   a host queued for a capacity slot (operationalStatus 'delayed')
//  unhandled credentials error, no management access, provisioner not ready, waiting for a
//  preprovisioning image, delete delayed for detached: nothing a host actor reports marks them
//  (a failed Secret read or an unreachable backend is a transient retry with no status change;
//  there is no PreprovisioningImage); exported, and 0, so BMO's dashboards and alerts find them.
// BMO defines waiting_for_preprov_image and delete_without_powering_off but never registers them
// (metrics.go init()); metalfleet exports all 24.
export const BMO_COUNTERS = {
  reconcile: { name: 'metal3_reconcile_total', help: 'The number of times hosts have been reconciled', labels: HOST },
  reconcileError: { name: 'metal3_reconcile_error_total', help: 'The number of times the operator has failed to reconcile a host', labels: [] },
  hostError: { name: 'metal3_host_error_total', help: 'The number of times hosts have entered an error state', labels: ['error_type'] },
  powerChange: { name: 'metal3_operation_power_change_total', help: 'Number of times a host has been powered on or off', labels: [...HOST, 'on_off'] },
  credentialsMissing: { name: 'metal3_credentials_missing_total', help: "Number of times a host's credentials are found to be missing", labels: [] },
  credentialsInvalid: { name: 'metal3_credentials_invalid_total', help: "Number of times a host's credentials are found to be invalid", labels: [] },
  credentialsUnhandledError: { name: 'metal3_credentials_unhandled_error_total', help: "Number of times getting a host's credentials fails in an unexpected way", labels: [] },
  credentialsUpdated: { name: 'metal3_credentials_updated_total', help: "Number of times a host's credentials change", labels: [] },
  waitingForPreprovImage: { name: 'metal3_waiting_for_preprov_image_total', help: 'Number of times the preprovisioning image is required but not available', labels: [] },
  noManagementAccess: { name: 'metal3_credentials_no_management_access_total', help: 'Number of times a host management interface is unavailable', labels: [] },
  hostConfigDataError: { name: 'metal3_host_config_data_error_total', help: 'Number of times the operator has failed to retrieve host configuration data', labels: ['host_data_type'] },
  delayedProvisioning: { name: 'metal3_delayed__provisioning_total', help: 'The number of times hosts have been delayed while provisioning due a busy provisioner', labels: HOST },
  delayedDeprovisioning: { name: 'metal3_delayed__deprovisioning_total', help: 'The number of times hosts have been delayed while deprovisioning due a busy provisioner', labels: HOST },
  stateChange: { name: 'metal3_provisioning_state_change_total', help: 'Number of times a state transition has occurred', labels: ['prev_state', 'new_state'] },
  registrationRequired: { name: 'metal3_host_registration_required_total', help: 'Number of times a host is found to be unregistered', labels: [] },
  hostUnmanaged: { name: 'metal3_host_unmanaged_total', help: 'Number of times a host is found to be unmanaged', labels: [] },
  deleteWithoutDeprovisioning: { name: 'metal3_delete_without_deprovisioning_total', help: 'Number of times a host is deleted despite deprovisioning failing', labels: [] },
  deleteWithoutPoweringOff: { name: 'metal3_delete_without_powering_off_total', help: 'Number of times a host is deleted despite powering off failing', labels: [] },
  provisionerNotReady: { name: 'metal3_provisioner_not_ready_total', help: 'Number of times a host is not provision ready', labels: [] },
  deleteDelayedForDetached: { name: 'metal3_delete_delayed_for_detached_total', help: 'Number of times a host delete action was delayed due to the detached annotation', labels: [] },
} as const satisfies Record<string, CounterSpec>;

// One observation per operation: its operationHistory end minus its start, when the end is set.
export const BMO_HISTOGRAMS = {
  register: { name: 'metal3_operation_register_duration_seconds', help: 'Length of time per registration per host', labels: HOST, buckets: DEFAULT_BUCKETS },
  inspect: { name: 'metal3_operation_inspect_duration_seconds', help: 'Length of time per hardware inspection per host', labels: HOST, buckets: SLOW_OPERATION_BUCKETS },
  provision: { name: 'metal3_operation_provision_duration_seconds', help: 'Length of time per hardware provision operation per host', labels: HOST, buckets: SLOW_OPERATION_BUCKETS },
  deprovision: { name: 'metal3_operation_deprovision_duration_seconds', help: 'Length of time per hardware deprovision operation per host', labels: HOST, buckets: SLOW_OPERATION_BUCKETS },
} as const satisfies Record<TimedOperation, HistogramSpec>;

// metalfleet's own, beside BMO's (BMO counts no servicing): servicings begun, and how long each
// ran until the host was back in service (outcome ok) or failed (outcome error).
export const SERVICING_METRICS = {
  count: { name: 'metalfleet_operation_servicing_total', help: 'Number of times a provisioned host has started servicing (firmware changes kept its workload)', labels: HOST },
  duration: { name: 'metalfleet_operation_servicing_duration_seconds', help: 'Length of time per servicing per host, by outcome', labels: [...HOST, 'outcome'], buckets: SLOW_OPERATION_BUCKETS },
} as const;

type CounterName = keyof typeof BMO_COUNTERS;

/**
 * The BMO metrics of one node, fed by the node's change stream (`changed`: state changes and a
 * host's end) and by what only a host reports (its status and warnings, HostStatusObserver); the
 * reconcile counters are read from the actor registry on each scrape (and when a host goes).
 */
export class BmoMetrics implements HostStatusObserver {
  private readonly counters: Record<CounterName, Counter>;
  private readonly durations: Record<TimedOperation, Histogram>;
  private readonly servicing: Counter;
  private readonly servicingDuration: Histogram;
  private readonly memory = new Map<string, HostMemory>();
  private seenActors = new Map<string, SeenActor>();
  private actorPaths = new Map<string, string>();

  constructor(registry: Registry, private readonly actors: Pick<ActorRegistry, 'list' | 'get'>) {
    const refresh = (): void => this.countSteps();
    const counters: Partial<Record<CounterName, Counter>> = {};
    for (const [id, spec] of Object.entries(BMO_COUNTERS) as Array<[CounterName, CounterSpec]>) {
      const stepped = id === 'reconcile' || id === 'reconcileError';
      counters[id] = new Counter({ name: spec.name, help: spec.help, labelNames: [...spec.labels], registers: [registry], ...(stepped ? { collect: refresh } : {}) });
    }
    this.counters = counters as Record<CounterName, Counter>;
    const histogram = (spec: HistogramSpec): Histogram => new Histogram({ name: spec.name, help: spec.help, labelNames: [...spec.labels], buckets: [...spec.buckets], registers: [registry] });
    this.durations = {
      register: histogram(BMO_HISTOGRAMS.register),
      inspect: histogram(BMO_HISTOGRAMS.inspect),
      provision: histogram(BMO_HISTOGRAMS.provision),
      deprovision: histogram(BMO_HISTOGRAMS.deprovision),
    };
    this.servicing = new Counter({ name: SERVICING_METRICS.count.name, help: SERVICING_METRICS.count.help, labelNames: [...SERVICING_METRICS.count.labels], registers: [registry] });
    this.servicingDuration = histogram(SERVICING_METRICS.duration);
  }

  /** One report of the change stream: BMO counts BareMetalHosts only. */
  changed(change: MachineChange): void {
    if (change.kind !== BMH_KIND) return;
    if (change.to === null) this.gone(change.key);
    else if (change.from !== null && change.from !== change.to) this.observe(change.key, { type: 'stateChanged', from: change.from, to: change.to });
  }

  statusRead(key: string, status: BareMetalHostStatus): void {
    this.observe(key, { type: 'loaded', status });
  }

  statusChanged(key: string, status: BareMetalHostStatus, waitingFor?: SlotOperation): void {
    this.observe(key, { type: 'statusChanged', status, ...(waitingFor ? { waitingFor } : {}) });
  }

  warning(key: string, reason: string, message: string): void {
    this.observe(key, { type: 'warning', reason, message });
  }

  gone(key: string): void {
    this.memory.delete(key);
    // Its last steps, while the actor is still registered; a host that comes and goes between
    // two scrapes was never looked up, and its steps are not counted.
    const path = this.actorPaths.get(key);
    const last = path === undefined ? undefined : this.actors.get(path);
    if (path === undefined || !last) return;
    const { deltas, seen } = hostStepDeltas(this.seenActors, [last]);
    this.countDeltas(deltas);
    const final = seen.get(path);
    if (final) this.seenActors.set(path, final);
    this.actorPaths.delete(key);
  }

  private observe(key: string, observation: HostObservation): void {
    const { memory, increments } = observeHost(this.memory.get(key), observation);
    if (memory) this.memory.set(key, memory);
    for (const increment of increments) this.apply(key, increment);
  }

  private apply(key: string, increment: MetricIncrement): void {
    const slash = key.indexOf('/');
    const host = { namespace: slash < 0 ? '' : key.slice(0, slash), host: key.slice(slash + 1) };
    const c = this.counters;
    switch (increment.metric) {
      case 'stateChange':
        c.stateChange.inc({ prev_state: increment.prev, new_state: increment.next });
        return;
      case 'operationDuration':
        this.durations[increment.operation].observe(host, increment.seconds);
        return;
      case 'hostError':
        c.hostError.inc({ error_type: increment.errorType });
        return;
      case 'powerChange':
        c.powerChange.inc({ ...host, on_off: increment.onOff });
        return;
      case 'delayed':
        (increment.phase === 'deprovisioning' ? c.delayedDeprovisioning : c.delayedProvisioning).inc(host);
        return;
      case 'hostConfigDataError':
        c.hostConfigDataError.inc({ host_data_type: increment.dataType });
        return;
      case 'servicing':
        this.servicing.inc(host);
        return;
      case 'servicingDuration':
        this.servicingDuration.observe({ ...host, outcome: increment.outcome }, increment.seconds);
        return;
      default:
        c[increment.metric].inc();
    }
  }

  private countSteps(): void {
    const { deltas, seen, paths } = hostStepDeltas(this.seenActors, this.actors.list({ summary: false }));
    this.seenActors = seen;
    this.actorPaths = paths;
    this.countDeltas(deltas);
  }

  private countDeltas(deltas: readonly HostStepDelta[]): void {
    for (const d of deltas) {
      if (d.steps > 0) this.counters.reconcile.inc({ namespace: d.namespace, host: d.name }, d.steps);
      if (d.failures > 0) this.counters.reconcileError.inc(d.failures);
    }
  }
}
