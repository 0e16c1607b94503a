// The dashboard: the fleet picture from the event stream, routed by the URL fragment
// (#/ the fleet, #/host/KIND/NS/NAME one host; #/host/NS/NAME a BareMetalHost, as links had it).
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Fleet } from './fleet.tsx';
import { HostPage } from './host-page.tsx';
import { HostTable } from './host-table.tsx';
import { takeToken, watchPicture } from './stream.ts';
import type { Picture } from './types.ts';

const token = takeToken();

/** A host's address, or `invalid` saying why the fragment is not one. */
type Route = { readonly key: string; readonly kind: string } | { readonly invalid: string };

// The kind is part of the address: a BareMetalHost and a MaasMachine may share a name. The server
// refuses a kind it does not know, and the page shows why.
function route(): Route | null {
  const m = /^#\/host\/(?:([^/]+)\/)?([^/]+)\/([^/]+)$/.exec(location.hash);
  if (!m) return null;
  try {
    return { kind: decodeURIComponent(m[1] ?? 'BareMetalHost'), key: `${decodeURIComponent(m[2] ?? '')}/${decodeURIComponent(m[3] ?? '')}` };
  } catch {
    // A stray '%' (URIError) threw out of render and left the whole page blank, the fleet too.
    return { invalid: `${location.hash} is not a host address: its percent-encoding is broken` };
  }
}

function App() {
  const [picture, setPicture] = useState<Picture | null>(null);
  const [tick, setTick] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [host, setHost] = useState<Route | null>(route());
  const [commands, setCommands] = useState(false);
  // The commands each kind takes (absent from an older server: every button, as before).
  const [actions, setActions] = useState<Record<string, string[]> | null>(null);
  useEffect(() => watchPicture((p) => { setPicture(p); setTick((t) => t + 1); }, setProblem), []);
  useEffect(() => {
    if (picture && performance.getEntriesByName('mf-picture', 'mark').length > 0) {
      performance.measure('mf-update', 'mf-picture');
      performance.clearMarks('mf-picture');
    }
  }, [picture]);
  useEffect(() => {
    const on = (): void => setHost(route());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  useEffect(() => {
    fetch('/api/config').then((r) => r.json()).then((c: { commands: boolean; actions?: Record<string, string[]> }) => {
      setCommands(c.commands);
      setActions(c.actions ?? null);
    }, () => undefined);
  }, []);
  return (
    <main>
      <header>
        <h1><a href="#/">metalfleet</a></h1>
        {picture ? <span class="muted" data-testid="updated">{new Date(picture.at).toISOString().slice(11, 19)} UTC · {picture.nodes.length} node(s)</span> : null}
        {commands ? <span class="tag">commands on</span> : <span class="tag">read-only</span>}
      </header>
      {/* Announced when it appears: the picture stopping is news to someone who cannot see it. */}
      {problem ? <p class="bad" role="alert">{problem}</p> : null}
      {picture?.problems.map((p) => <p class="bad" key={p}>{p}</p>)}
      {!picture ? <p>waiting for the first picture…</p>
        : host && 'invalid' in host ? <section><a href="#/">← fleet</a><p class="bad" data-testid="host-error">{host.invalid}</p></section>
        // Keyed by the host: another host's page starts empty, never with the last one's data or
        // the answer to a command sent to it (with buttons that would send to the new host).
        : host ? <HostPage key={`${host.kind}/${host.key}`} hostKey={host.key} kind={host.kind} tick={tick} commands={commands} actions={actions?.[host.kind] ?? null} token={token} />
          : <><Fleet picture={picture} /><HostTable hosts={picture.hosts} /></>}
    </main>
  );
}

// An empty inline icon: without one the browser asks the server for /favicon.ico on every load
// and logs its 404. The bundle runs before the document's load event, when the browser picks it.
if (!document.querySelector('link[rel~="icon"]')) {
  const icon = document.createElement('link');
  icon.rel = 'icon';
  icon.href = 'data:,';
  document.head.append(icon);
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
