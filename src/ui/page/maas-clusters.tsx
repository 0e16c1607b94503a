// The MaasClusters: per cluster its DNS name and the record's addresses as MAAS holds them,
// whether it is ready, and its machines with their MAAS state and whether the record holds them.
import { duration } from './format.ts';
import type { MaasClusterLine } from './types.ts';

// A page, not a report: past this many the CLI (`metalfleet clusters`) lists them all.
const CLUSTERS_SHOWN = 50;
const MACHINES_SHOWN = 50;

// A cluster's machines are MaasMachines: the link names the kind (a BareMetalHost may share the name).
const hostLink = (key: string): string => `#/host/MaasMachine/${key.split('/').map(encodeURIComponent).join('/')}`;

function MaasCluster({ c }: { c: MaasClusterLine }) {
  const problem = c.lastError ?? c.waiting;
  return (
    <div data-testid="maas-cluster" data-key={c.key}>
      <h3>{c.key} <span class={`tag${c.ready ? '' : ' bad'}`}>{c.ready ? 'ready' : c.phase}</span> <span class="muted">node {c.node} · shard {c.shard}</span></h3>
      <p>
        DNS <b data-testid="maas-cluster-dns">{c.dnsName ?? '—'}</b>{' → '}
        {c.addresses.length === 0 ? <span class="muted">no address</span>
          : c.addresses.map((a, i) => <span key={a}>{i > 0 ? ', ' : ''}<code data-testid="maas-cluster-address">{a}</code></span>)}
        {c.addressesSeenMs !== null ? <span class="muted"> (read from MAAS {duration(c.addressesSeenMs)} ago)</span> : null}
      </p>
      {problem ? <p class="bad">{problem}</p> : null}
      <table>
        <thead><tr><th>machine</th><th>role</th><th>MAAS state</th><th>address</th><th>in DNS</th></tr></thead>
        <tbody>{c.machines.slice(0, MACHINES_SHOWN).map((m) => (
          <tr key={m.key} data-testid="maas-cluster-machine">
            <td><a href={hostLink(m.key)}>{m.key}</a></td>
            <td>{m.controlPlane ? 'control plane' : 'worker'}</td>
            <td>{m.machineState || '—'}</td><td>{m.address ?? '—'}</td><td>{m.dnsAttached ? 'yes' : 'no'}</td>
          </tr>
        ))}</tbody>
      </table>
      {c.machines.length > MACHINES_SHOWN ? <p class="muted">… {c.machines.length - MACHINES_SHOWN} more machines</p> : null}
    </div>
  );
}

export function MaasClusters({ clusters }: { clusters: readonly MaasClusterLine[] }) {
  if (clusters.length === 0) return null;
  return (
    <section data-testid="maas-clusters">
      <h2>MAAS clusters</h2>
      {clusters.slice(0, CLUSTERS_SHOWN).map((c) => <MaasCluster key={`${c.node}/${c.key}`} c={c} />)}
      {clusters.length > CLUSTERS_SHOWN ? <p class="muted">… {clusters.length - CLUSTERS_SHOWN} more clusters: see `metalfleet clusters`</p> : null}
    </section>
  );
}
