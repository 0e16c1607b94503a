// The fleet at a glance: totals, hosts per state, pools, nodes and the shard grid.
import { colourOf, duration, stateColour, usageOf } from './format.ts';
import { MaasClusters } from './maas-clusters.tsx';
import { StateChart } from './state-chart.tsx';
import type { Picture } from './types.ts';

export function Totals({ picture }: { picture: Picture }) {
  const all = picture.states.map(([s]) => s);
  return (
    <section class="totals">
      <div class="figure"><b data-testid="hosts-total">{picture.hostsTotal}</b> hosts</div>
      <div class="figure"><b data-testid="provisioned">{picture.provisioned}</b> provisioned</div>
      <div class="figure"><b data-testid="throughput">{picture.throughput.toFixed(1)}</b> hosts/s</div>
      <div class={`figure${picture.errors > 0 ? ' bad' : ''}`}><b data-testid="errors">{picture.errors}</b> with an error</div>
      <ul class="states">
        {picture.states.map(([s, n]) => (
          <li key={s}><span class="swatch" style={{ background: stateColour(s, all) }} />{s} <b data-testid={`state-${s}`}>{n}</b></li>
        ))}
      </ul>
    </section>
  );
}

export function Pools({ picture }: { picture: Picture }) {
  if (picture.pools.length === 0) return <section><h2>Capacity</h2><p class="muted">no pool yet</p></section>;
  return (
    <section>
      <h2>Capacity</h2>
      <table data-testid="pools">
        {/* The meter's column is named for screen readers only: an empty <th> is announced as nothing. */}
        <thead><tr><th>pool</th><th>in use</th><th><span class="visually-hidden">share of the limit</span></th><th>waiting</th><th>longest wait</th><th>stalled</th><th>next in queue</th></tr></thead>
        <tbody>
          {picture.pools.map((p) => {
            // The broker's counts, as `metalfleet capacity` and `top` show them: the inUse list stops
            // at its first 200 holders, and exempt holders (virtual media) are outside the limit, so
            // they are shown beside it (400/400 (+500 exempt)), never in it (900/400).
            const { bounded, exempt } = usageOf(p);
            const share = p.limit ? Math.min(1, bounded / p.limit) : 0;
            const waiting = p.waitingCount ?? p.waiting.length;
            return (
              <tr key={`${p.node}/${p.pool}`}>
                <td>{p.pool}</td>
                <td data-testid="pool-in-use">{bounded}/{p.limit ?? '∞'}{exempt > 0 ? ` (+${exempt} exempt)` : ''}</td>
                <td><div class="meter"><div style={{ width: `${share * 100}%` }} /></div></td>
                <td>{waiting}</td>
                {/* Nobody waits: no wait to measure, '-' as `metalfleet capacity` says, not 0ms. */}
                <td data-testid="pool-longest-wait">{waiting === 0 ? '-' : duration(p.longestWaitMs)}</td>
                {/* A free slot beside a waiting host with nothing granted: anything but 0 is a stall. */}
                <td data-testid="pool-stalled" class={(p.stallSeconds ?? 0) > 0 ? 'bad' : 'muted'}>{(p.stallSeconds ?? 0) > 0 ? duration(Math.round((p.stallSeconds ?? 0) * 1000)) : '0s'}</td>
                <td class="muted">{p.waiting.slice(0, 3).map((w) => w.holder).join(', ')}{p.waiting.length > 3 ? ' …' : ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export function Cluster({ picture }: { picture: Picture }) {
  const nodes = picture.nodes.map((n) => n.node);
  return (
    <section>
      <h2>Cluster</h2>
      <p>broker: <b data-testid="broker">{picture.broker ?? 'none'}</b>{picture.missing.length > 0 ? <span class="bad"> · not answering: {picture.missing.join(', ')}</span> : null}</p>
      <table data-testid="nodes">
        <thead><tr><th>node</th><th>hosts</th><th>shards</th><th>heartbeat</th><th>loop lag</th><th>memory</th><th>up</th></tr></thead>
        <tbody>
          {picture.nodes.map((n) => (
            <tr key={n.node}>
              <td><span class="swatch" style={{ background: colourOf(n.node, nodes) }} />{n.node}{n.broker ? ' (broker)' : ''}</td>
              <td>{n.hosts}</td><td>{n.shards}</td>
              {/* Heartbeats come every second on NATS and every 10 s in the embedded mode; past 12 s one was missed either way. */}
              <td class={n.lastSeenMs !== null && n.lastSeenMs > 12_000 ? 'bad' : ''}>{n.lastSeenMs === null ? '—' : `${duration(n.lastSeenMs)} ago`}</td>
              <td>{n.eventLoopLagMs.toFixed(1)}ms</td><td>{Math.round(n.rssBytes / 1048576)} MiB</td><td>{duration(n.uptimeMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="shards" data-testid="shards">
        {picture.shards.map((s) => (
          // A hover text alone reaches neither the keyboard nor a screen reader: each square is named.
          <span key={s.shard} class="shard" style={{ background: colourOf(s.node, nodes) }} role="img"
            aria-label={`shard ${s.shard}, owner ${s.node}, ${s.hosts} ${s.hosts === 1 ? 'host' : 'hosts'}`}
            title={`shard ${s.shard}: ${s.node}, epoch ${s.epoch}, ${s.hosts} hosts, lease ${duration(s.leaseAgeMs)}`} />
        ))}
      </div>
    </section>
  );
}

// The section is a summary: past this many rows the hosts table (which filters) is the place to look.
const MAAS_ROWS = 50;

/** MaasMachines by their MAAS state; each links to its host page (its MAAS record is there). */
export function Maas({ picture }: { picture: Picture }) {
  const machines = picture.hosts.filter((h) => h.kind === 'MaasMachine');
  if (machines.length === 0) return null;
  const byState = new Map<string, number>();
  for (const m of machines) byState.set(m.state, (byState.get(m.state) ?? 0) + 1);
  return (
    <section data-testid="maas">
      <h2>MAAS</h2>
      <p>{machines.length} MaasMachines: {[...byState].map(([s, n]) => `${s} ${n}`).join(' · ')}</p>
      <table>
        <thead><tr><th>machine</th><th>MAAS state</th><th>status</th><th>power</th><th>node</th><th>error</th></tr></thead>
        <tbody>{machines.slice(0, MAAS_ROWS).map((m) => (
          <tr key={m.key} data-testid="maas-machine">
            <td><a href={`#/host/MaasMachine/${m.key.split('/').map(encodeURIComponent).join('/')}`}>{m.key}</a></td>
            {/* The status is the kind's view (paused, waiting, delayed, OK), as for a BareMetalHost. */}
            <td>{m.state}</td><td data-testid="maas-machine-status">{m.operationalStatus}</td><td>{m.poweredOn ? 'on' : 'off'}</td><td data-testid="maas-machine-node">{m.node}</td><td class={m.errorType ? 'bad' : ''}>{m.errorType}</td>
          </tr>
        ))}</tbody>
      </table>
      {machines.length > MAAS_ROWS && <p data-testid="maas-more">first {MAAS_ROWS} of {machines.length}: the hosts table below lists and filters them all</p>}
    </section>
  );
}

export function Fleet({ picture }: { picture: Picture }) {
  return (
    <>
      <Totals picture={picture} />
      <section><h2>Hosts per state</h2><StateChart picture={picture} /></section>
      <div class="columns"><Pools picture={picture} /><Cluster picture={picture} /></div>
      <Maas picture={picture} />
      <MaasClusters clusters={picture.clusters} />
    </>
  );
}
