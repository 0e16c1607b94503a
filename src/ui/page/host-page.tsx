// One host: spec (without secrets: the server never has them to send), status, the transition
// timeline with durations, backend record, slot and backoff, and the command buttons.
import { useEffect, useState } from 'preact/hooks';
import { Conditions } from './conditions.tsx';
import { duration } from './format.ts';
import type { HostDetail } from './types.ts';

const ACTIONS = ['power-on', 'power-off', 'reboot', 'detach', 'attach', 'pause', 'unpause', 'inspect', 'service', 'release'] as const;

// Commands a click must not send alone: a release gives the machine back and fails its MaasMachine.
const CONFIRM: Partial<Record<string, string>> = {
  release: 'Release this machine back to MAAS? Its MaasMachine is marked failed and Cluster API replaces the Machine.',
};

// Only the kind asked for: a BareMetalHost and a MaasMachine may share a name.
async function fetchHost(key: string, kind: string): Promise<HostDetail | string> {
  const res = await fetch(`/api/hosts/${key.split('/').map(encodeURIComponent).join('/')}?kind=${encodeURIComponent(kind)}`);
  // A proxy's error page is not JSON: its status is all there is to say.
  const body = await res.json().catch(() => null) as HostDetail | { error?: string } | null;
  if (res.ok && body !== null) return body as HostDetail;
  return (body as { error?: string } | null)?.error ?? `${key}: metalfleet answered HTTP ${res.status}`;
}

interface Sent { ok: boolean; reason?: string; commands: Array<{ at: string; command: string | null; outcome: string; by: string; node: string; reason: string | null }> }

/** The audit's answer, for this kind's object only; `failed` when it could not be read (worth asking again). */
async function fetchCommands(key: string, kind: string): Promise<{ sent: Sent; failed: boolean }> {
  const res = await fetch(`/api/hosts/${key.split('/').map(encodeURIComponent).join('/')}/commands?kind=${encodeURIComponent(kind)}`);
  // A proxy's error page is not JSON, an error answer has no commands: said, not drawn as none.
  const body = await res.json().catch(() => null) as Sent | { error?: string } | null;
  if (res.ok && body !== null && Array.isArray((body as Sent).commands)) return { sent: body as Sent, failed: false };
  return { sent: { ok: false, reason: `cannot read the commands sent: ${(body as { error?: string } | null)?.error ?? `metalfleet answered HTTP ${res.status}`}`, commands: [] }, failed: true };
}

export function HostPage({ hostKey, kind, tick, commands, actions, token }: { hostKey: string; kind: string; tick: number; commands: boolean; actions: readonly string[] | null; token: string | null }) {
  const [host, setHost] = useState<HostDetail | string | null>(null);
  const [result, setResult] = useState<string>('');
  // One command at a time: a second click while one is on its way would send it twice.
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<Sent | null>(null);
  // The audit is read on opening and after each command, not on every tick (each read is a JetStream consumer).
  const [asked, setAsked] = useState(0);
  // A read that failed (the server away, restarting) is asked again with the next picture: it
  // said "reading the audit…" for good, as nothing else asks again until a command is sent.
  const [unread, setUnread] = useState(false);
  useEffect(() => {
    let live = true;
    fetchCommands(hostKey, kind).then(({ sent: c, failed }) => {
      if (!live) return;
      // A list read before stays rather than give way to a passing failure.
      setSent((shown) => (failed && shown !== null && shown.ok ? shown : c));
      setUnread(failed);
    }, (e: unknown) => {
      if (!live) return;
      setSent((shown) => (shown !== null && shown.ok ? shown : { ok: false, reason: `cannot reach metalfleet to read the commands sent: ${e instanceof Error ? e.message : String(e)}`, commands: [] }));
      setUnread(true);
    });
    return () => { live = false; };
  }, [hostKey, kind, asked, unread ? tick : -1]);
  // Refetched on each picture from the stream: the host page is live too.
  useEffect(() => {
    let live = true;
    // Unreachable (the node stopped or restarts): the host as last read stays, under the page's
    // "connection lost" banner; it was replaced by "TypeError: Failed to fetch".
    fetchHost(hostKey, kind).then((h) => live && setHost(h), (e: unknown) => live && setHost((shown) => (
      shown !== null && typeof shown === 'object' ? shown : `cannot reach metalfleet to read ${hostKey}: ${e instanceof Error ? e.message : String(e)}`)));
    return () => { live = false; };
  }, [hostKey, kind, tick]);

  const send = async (action: string): Promise<void> => {
    const question = CONFIRM[action];
    if (question !== undefined && !window.confirm(`${hostKey}: ${question}`)) {
      setResult(`${action}: not sent`);
      return;
    }
    setSending(true);
    setResult(`${action}: sending…`);
    try {
      const res = await fetch(`/api/hosts/${hostKey.split('/').map(encodeURIComponent).join('/')}/command`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-metalfleet-ui-token': token ?? '' }, body: JSON.stringify({ action, kind }),
      });
      // A proxy's error page is not JSON: its status is all there is to say.
      const body = await res.json().catch(() => ({})) as { message?: string; state?: string; error?: string };
      setResult(res.ok ? `${action}: ${body.message ?? 'recorded'} (state ${body.state || 'none'})` : `${action} refused: ${body.error ?? `HTTP ${res.status}`}`);
    } catch (err) {
      // The server went away mid-request (the node stopped or restarts): whether the command was
      // taken is unknown, so the page says that rather than "sending…" for ever.
      setResult(`${action}: no answer from metalfleet (${err instanceof Error ? err.message : String(err)}); it may or may not have been taken: check the host once the page is live again`);
    } finally {
      setSending(false);
      setAsked((n) => n + 1);
    }
  };

  if (host === null) return <p>loading {hostKey}…</p>;
  if (typeof host === 'string') return <section><a href="#/">← fleet</a><p class="bad" data-testid="host-error">{host}</p></section>;
  return (
    <section class="host">
      <a href="#/">← fleet</a>
      <h2 data-testid="host-key">{host.key}</h2>
      {host.stored
        ? <p data-testid="host-stored">{host.kind} on {host.backend} · <b data-testid="host-state">{host.state}</b> · no node drives it now (shard {host.shard}): shown as node {host.node}'s store last had it, {host.state === 'unreadable' ? 'which cannot read its record (see the timeline)' : `${host.kind === 'MaasMachine' ? 'its newest condition changed' : 'status written'} ${duration(host.stateSinceMs)} ago`}</p>
        : <p>{host.kind} on {host.backend} · <b data-testid="host-state">{host.state}</b> for {duration(host.stateSinceMs)} · node {host.node}, shard {host.shard}, epoch {host.epoch}</p>}
      <p>slot: {host.slot.phase}{host.slot.op ? ` (${host.slot.op})` : ''}{host.slot.waitingMs !== undefined ? `, waiting ${duration(host.slot.waitingMs)}` : ''}
        {' · '}backoff: {host.retryWaitsForChange ? 'none until the host or its Secret changes' : host.nextAttemptInMs === null ? 'none' : `next attempt in ${duration(host.nextAttemptInMs)}`}{host.inFlight ? ` · running: ${host.inFlight}` : ''}</p>
      <div class="commands">
        {ACTIONS.filter((a) => actions === null || actions.includes(a)).map((a) => <button key={a} data-testid={`cmd-${a}`} disabled={!commands || sending} onClick={() => void send(a)}>{a}</button>)}
        {commands ? null : <span class="muted"> read-only: start with --ui-commands to send commands</span>}
        {/* A live region: a screen reader announces the answer, which appears away from the button. */}
        <div data-testid="command-result" role="status">{result}</div>
      </div>
      <Conditions status={host.status} />
      <h3>Timeline</h3>
      <table data-testid="timeline">
        <thead><tr><th>at</th><th>for</th><th>reason</th><th>message</th></tr></thead>
        <tbody>{host.timeline.map((t, i) => (
          <tr key={i} data-testid="timeline-row" class={t.severity === 'Warning' ? 'bad' : ''}>
            <td>{new Date(t.at).toISOString().slice(11, 23)}</td><td>{duration(t.durationMs)}</td><td>{t.reason}</td><td>{t.message}</td>
          </tr>
        ))}</tbody>
      </table>
      <h3>Commands</h3>
      {sent === null ? <p class="muted">reading the audit…</p> : !sent.ok ? <p class="muted" data-testid="commands-note">{sent.reason}</p>
        : sent.commands.length === 0 ? <p class="muted">none recorded</p> : (
          <table data-testid="commands">
            <thead><tr><th>at</th><th>command</th><th>outcome</th><th>by</th><th>node</th><th>reason</th></tr></thead>
            <tbody>{sent.commands.map((c, i) => (
              <tr key={i} data-testid="command-row"><td>{c.at}</td><td>{c.command}</td><td class={c.outcome === 'refused' || c.outcome === 'failed' ? 'bad' : ''}>{c.outcome}</td><td>{c.by}</td><td>{c.node}</td><td>{c.reason ?? ''}</td></tr>
            ))}</tbody>
          </table>
        )}
      <div class="columns">
        <div><h3>Spec</h3><pre data-testid="host-spec">{JSON.stringify(host.spec, null, 2)}</pre></div>
        <div><h3>Status</h3><pre>{JSON.stringify(host.status, null, 2)}</pre></div>
      </div>
      {host.companions === undefined ? null : <Companions c={host.companions} />}
      {host.backendRecord === undefined ? null : <><h3>Backend record</h3><pre>{JSON.stringify(host.backendRecord, null, 2)}</pre></>}
    </section>
  );
}

// A BareMetalHost's companions: HardwareData, firmware settings (valid, changes), components, policy.
function Companions({ c }: { c: NonNullable<HostDetail['companions']> }) {
  const yesNo = (v: boolean | null): string => (v === null ? 'unknown' : v ? 'yes' : 'no');
  return (
    <>
      <h3>Companions</h3>
      <table data-testid="host-companions">
        <tbody>
          <tr><th>HardwareData</th><td>{c.hardwareData ? 'present' : 'none'}</td></tr>
          <tr><th>HostFirmwareSettings</th><td>{c.settings ? `${c.settings.reported} reported, ${c.settings.asked} asked; valid ${yesNo(c.settings.valid)}, changes ${yesNo(c.settings.changeDetected)}${c.settings.schema ? `; schema ${c.settings.schema}` : ''}` : 'none'}</td></tr>
          <tr><th>HostFirmwareComponents</th><td>{c.components ? `${c.components.versions.map((v) => `${v.component} ${v.version}`).join(', ') || 'none listed'}; ${c.components.updatesAsked} update(s) asked` : 'none'}</td></tr>
          <tr><th>HostUpdatePolicy</th><td>{c.updatePolicy ? `firmwareSettings ${c.updatePolicy.firmwareSettings ?? 'onPreparing'}, firmwareUpdates ${c.updatePolicy.firmwareUpdates ?? 'onPreparing'}` : 'none'}</td></tr>
        </tbody>
      </table>
    </>
  );
}
