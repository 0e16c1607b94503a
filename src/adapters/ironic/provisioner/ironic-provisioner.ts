import { parseBmcAddress, errorMessage } from '../../../api/index.ts';
import type { OpResult } from '../../../machines/bmh/index.ts';
import type { CapacityClaim, HostData, Logger, Provisioner } from '../../../ports/index.ts';
import { silentLogger } from '../../../ports/index.ts';
import type { IronicClient, IronicNode } from '../client/index.ts';
import { IronicError } from '../client/index.ts';
import { adopt } from './adopt.ts';
import type { StepContext } from './context.ts';
import { deprovision } from './deprovision.ts';
import { inspect } from './inspect.ts';
import type { DeployImages, DriverOverride } from './node-spec.ts';
import type { Polls } from './outcome.ts';
import { failed, needsRegistration } from './outcome.ts';
import { hardwareState, setPower } from './power.ts';
import { prepare } from './prepare.ts';
import { provision } from './provision.ts';
import { register } from './register.ts';
import { readFirmware } from './firmware-read.ts';
import { service } from './service.ts';
import { removeNode } from './remove.ts';
import { lookupNode } from './find-node.ts';
import type { NodeLookup } from './find-node.ts';
import { LastRead, watchedClient } from './last-read.ts';
import { claimNode, leaseGuardedClient, LeaseNotHeld } from './owner-fence.ts';
import { StaleOwner, tellFenceRefused } from '../../../ports/index.ts';

export interface IronicProvisionerOptions {
  readonly client: IronicClient;
  // The capacity pool: one per Ironic endpoint, so several Ironics each keep their own limit.
  readonly pool?: string;
  readonly driverOverride?: DriverOverride | null;
  readonly deploy?: DeployImages;
  readonly polls?: Partial<Polls>;
  readonly imageCheck?: { enabled?: boolean; timeoutMs?: number };
  // Debug lines about what was fitted to the negotiated Ironic version (fields left out).
  readonly log?: Logger;
}

export function createIronicProvisioner(o: IronicProvisionerOptions): Provisioner {
  const ctx: StepContext = {
    client: o.client,
    log: o.log ?? silentLogger,
    polls: { shortMs: o.polls?.shortMs ?? 3_000, longMs: o.polls?.longMs ?? 10_000 },
    override: o.driverOverride ?? null,
    deploy: o.deploy ?? {},
    imageCheck: { enabled: o.imageCheck?.enabled ?? true, timeoutMs: o.imageCheck?.timeoutMs ?? 5_000 },
    cleaning: new Set(),
    servicing: new Set(),
    ports: new Set(),
    created: new Map(),
  };
  const pool = o.pool ?? `ironic:${o.client.endpoint}`;
  // Each call runs with a client whose writes ask the shard lease first, after the node's
  // recorded owner has been compared with the caller's lease (owner-fence.ts).
  // The node a host's finished call read last, for its next call (last-read.ts).
  const lastRead = new LastRead(ctx.polls.shortMs);
  const guard = (host: HostData, fn: (c: StepContext) => Promise<OpResult>): Promise<OpResult> => {
    const known = lastRead.take(host);
    const watched = watchedClient(host.leaseHeld ? leaseGuardedClient(ctx.client, host) : ctx.client, known, lastRead.now);
    const c: StepContext = { ...ctx, client: watched.client };
    return fenced(c, host, known?.node).then((prefound) => fn(prefound ? { ...c, prefound } : c)).then((result) => {
      const read = watched.latest();
      if (result.kind === 'done' && read) lastRead.keep(host, read);
      return result;
    }).catch((err: unknown) => toResult(err, o.client.endpoint));
  };
  // host:port only: an endpoint URL may carry userinfo, a label never does.
  const backend = `ironic:${new URL(o.client.endpoint).host}`;
  return {
    name: 'ironic',
    apiVersions: () => [{ backend, version: o.client.version?.text ?? null }],
    requests: () => Object.entries(o.client.stats.byRouteStatus).flatMap(([route, byStatus]) =>
      Object.entries(byStatus).map(([status, count]) => ({ backend, route, status, count }))),
    capacity(host: HostData): CapacityClaim {
      const bmc = parseBmcAddress(host.spec.bmc?.address ?? '');
      return { pool, exempt: bmc.ok && bmc.bmc.supportsVirtualMedia };
    },
    register: (host, a) => guard(host, (c) => register(c, host, a.restartOnFailure, a.credentialsChanged)),
    inspect: (host, a) => guard(host, (c) => inspect(c, host, a)),
    prepare: (host, a) => guard(host, (c) => prepare(c, host, a)),
    provision: (host, a) => guard(host, (c) => provision(c, host, { rootDeviceHints: a.rootDeviceHints, forceReboot: a.forceReboot === true })),
    deprovision: (host, a) => guard(host, (c) => deprovision(c, host, a)),
    adopt: (host, a) => guard(host, (c) => adopt(c, host, a.restartOnFailure)),
    powerOn: (host, a) => guard(host, (c) => setPower(c, host, 'on', 'hard', a.force)),
    powerOff: (host, a) => guard(host, (c) => setPower(c, host, 'off', a.mode, a.force)),
    hardwareState: (host) => guard(host, (c) => hardwareState(c, host)),
    detach: (host, a) => guard(host, (c) => removeNode(c, host, a.force)),
    delete: (host) => guard(host, (c) => removeNode(c, host, true)),
    service: (host, a) => guard(host, (c) => service(c, host, a)),
    firmware: (host) => guard(host, (c) => readFirmware(c, host)),
  };
}

/**
 * With a fence, the node (when it exists yet) is claimed for the caller's lease, or refused to it.
 * Returns what was read for the call to use: the node as found (or as the host's last call left
 * it, `known`), or as the claim's PATCH answered.
 */
async function fenced(c: StepContext, host: HostData, known: IronicNode | undefined): Promise<StepContext['prefound']> {
  if (!host.fence) return known ? { node: known, used: false } : undefined;
  const found: NodeLookup = known ? { node: known } : await lookupNode(c, host);
  const node = found.node;
  // A refusal is told to the shard's owner, which gives the shard up and retakes it above (issue 30).
  // Another host's node that holds this host's boot MAC is never claimed (it is not found).
  const claim = node ? await claimNode(c.client, node, host.fence).catch((err: unknown) => Promise.reject(tellFenceRefused(host, err))) : null;
  return { node: claim?.standing === 'recorded' ? claim.node : node, ...(found.macHeldBy ? { macHeldBy: found.macHeldBy } : {}), used: false };
}

// Ironic errors become results: a vanished node asks for registration, a retryable one is
// transient (fast retry, no status change), anything else fails this attempt with Ironic's words.
// Ironic not answering at all (not started yet, restarting, gone) heals by itself: said plainly,
// and transient, so the host backs off and tries again (BMO: provisioner not ready, requeue).
function toResult(err: unknown, endpoint: string): OpResult {
  if (err instanceof StaleOwner || err instanceof LeaseNotHeld) return { kind: 'transient', message: err.message };
  if (err instanceof IronicError) {
    if (err.code === 'not-found') return needsRegistration;
    if (err.code === 'network' && err.retryable) {
      const errno = (err.cause as NodeJS.ErrnoException | undefined)?.code ?? 'no connection';
      return { kind: 'transient', message: `Ironic at ${endpoint} is not reachable: ${errno}; retrying` };
    }
    if (err.retryable) return { kind: 'transient', message: err.message };
    return failed(err.message);
  }
  return { kind: 'transient', message: errorMessage(err) };
}
