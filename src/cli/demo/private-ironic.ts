import type { DeployImages } from '../../adapters/ironic/provisioner/index.ts';
import type { VirtualDatacenter } from '../../sim/datacenter/index.ts';
import type { Refusal } from '../../sim/agent/index.ts';
import { CliError } from '../cli-error.ts';
import { errorMessage } from '../../api/index.ts';

// What `metalfleet demo --ironic` (no URL) runs beside itself: a private Ironic and, with
// --datacenter N, a virtual datacenter whose servers that Ironic drives with its real redfish
// drivers. With --datacenter N --ironic URL, only the datacenter: the user's own Ironic drives it.
// Everything here is stopped by stop(), on the way out or on a signal.
export interface PrivateIronic {
  readonly url: string;
  readonly datacenter: VirtualDatacenter | null;
  /** The datacenter's deploy kernel, ramdisk and ISO (none without a datacenter). */
  readonly deploy: DeployImages | undefined;
  /** For the human output: what was started, where. */
  readonly banner: string;
  stop(): Promise<void>;
}

// An agent refused by Ironic (a newer Ironic refusing plain-http callbacks) is said on stderr,
// where the demo's progress does not tear it, rather than a host hanging in provisioning. A call
// that got no answer at all (Ironic down or stopping) was not refused, and is said so. Nothing is
// said once the demo is stopping (`quiet`): its agents then lose Ironic on the way out.
// Loaded with the datacenter, never by a demo that runs none.
export async function refusalReporter(quiet: () => boolean = () => false): Promise<(server: string, r: Refusal) => void> {
  const { describeRefusal } = await import('../../sim/agent/index.ts');
  return (server, r) => {
    if (quiet()) return;
    const line = r.status === 0
      ? `${r.call} to Ironic failed (no answer): ${r.message}; ${r.count} in a row, next try in ${Math.round(r.retryInMs / 100) / 10} s`
      : describeRefusal(r);
    process.stderr.write(`datacenter ${server}: ${line}\n`);
  };
}

export async function startPrivateIronic(o: { servers: number | null; externalIronic?: string }): Promise<PrivateIronic> {
  if (o.externalIronic !== undefined && o.servers !== null) return startDatacenterFor(o.externalIronic, o.servers);
  // Loaded only here: the simulators are no part of a demo against a real Ironic.
  const { freePort, guardAgainstOrphans, ironicInstalled, startIronic } = await import('../../sim/ironic/index.ts');
  if (!ironicInstalled()) throw new CliError('--ironic without a URL starts a private Ironic, but Ironic is not installed here: run `bash scripts/ironic-install.sh` as root (or pass --ironic URL)', 1);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let datacenter: VirtualDatacenter | null = null;
  let stopping: Promise<void> | null = null;
  if (o.servers !== null) {
    const { startVirtualDatacenter } = await import('../../sim/datacenter/index.ts');
    // IPA heartbeats every few minutes, and at once when a command ends (the short gap, which is
    // what keeps a host's steps short). Every heartbeat is a write to Ironic's SQLite: many servers
    // beating each second starve the agents' token lookups past their 10 s timeout.
    datacenter = await startVirtualDatacenter({ systems: o.servers, ironicUrl: url, heartbeatIntervalMs: 5_000, minHeartbeatGapMs: 200, onAgentRefused: await refusalReporter(() => stopping !== null) });
  }
  const dc = datacenter;
  // The datacenter's folder (boot files, images), should the demo be killed without stopping it:
  // the private Ironic's own guard ends it and removes its folder (sim/ironic/orphan-guard.ts).
  const dcGuard = dc ? guardAgainstOrphans({ dirs: [dc.bootServer.root] }) : null;
  const ironic = await startIronic({ port, ...(dc ? { bootServer: dc.bootServer, sushyRegistries: true } : {}) }).catch(async (err: unknown) => {
    await dc?.stop();
    dcGuard?.release();
    throw new CliError(`--ironic: the private Ironic did not start: ${errorMessage(err)}`, 1);
  });
  return {
    url: ironic.url,
    datacenter: dc,
    deploy: dc ? dc.deployImages : undefined,
    banner: [
      `started a private Ironic at ${ironic.url} (its files: ${ironic.dir})`,
      ...(dc ? [`started a virtual datacenter: ${dc.systems.length} servers, BMCs at ${dc.redfish.url}, images and boot files at ${dc.images.url}`] : []),
    ].join('\n'),
    stop() {
      // The datacenter first: its agents heartbeat to Ironic, and with Ironic gone first each
      // said a failed heartbeat on the way out. Ironic is stopped even if the datacenter's stop fails.
      stopping ??= (async () => {
        try {
          await dc?.stop();
          dcGuard?.release();
        } finally {
          await ironic.stop();
        }
      })();
      return stopping;
    },
  };
}

// The user's Ironic drives the datacenter: it must reach the BMCs and agents on this machine's
// loopback, and serve (i)PXE boot files where the simulated firmware looks (its [deploy] http_root
// and http_url set to the datacenter's boot server); virtual media boots need neither.
async function startDatacenterFor(url: string, servers: number): Promise<PrivateIronic> {
  const { startVirtualDatacenter } = await import('../../sim/datacenter/index.ts');
  const { guardAgainstOrphans } = await import('../../sim/ironic/index.ts');
  let stopping: Promise<void> | null = null;
  const dc = await startVirtualDatacenter({ systems: servers, ironicUrl: url, heartbeatIntervalMs: 5_000, minHeartbeatGapMs: 200, onAgentRefused: await refusalReporter(() => stopping !== null) }).catch((err: unknown) => {
    throw new CliError(`--datacenter: the virtual datacenter did not start: ${errorMessage(err)}`, 1);
  });
  // Its folder goes should the demo be killed without stopping it.
  const dcGuard = guardAgainstOrphans({ dirs: [dc.bootServer.root] });
  return {
    url,
    datacenter: dc,
    deploy: dc.deployImages,
    banner: [
      `started a virtual datacenter: ${dc.systems.length} servers, BMCs at ${dc.redfish.url}, images and boot files at ${dc.images.url}`,
      `driven by your Ironic at ${url}; for PXE boots its [deploy] http_root must be ${dc.bootServer.root} and http_url ${dc.bootServer.url}`,
      'from Ironic 26 on, it also needs [agent] require_tls = false: the simulated agents call back over plain http',
    ].join('\n'),
    stop() {
      stopping ??= dc.stop().then(() => dcGuard.release());
      return stopping;
    },
  };
}

/**
 * Runs `stop` (the private Ironic and datacenter, a --persist save) on SIGINT or SIGTERM, then exits as a signalled
 * process would. Returns the function that removes the handlers (for the --ui hold, which
 * handles the signal itself and stops everything on its way out).
 */
export function stopOnSignal(stop: () => Promise<void>, says: string | null = 'stopping the private Ironic and datacenter'): () => void {
  const handler = (signal: NodeJS.Signals): void => {
    off();
    if (says !== null) process.stderr.write(`${signal}: ${says}\n`);
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  const off = (): void => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return off;
}
