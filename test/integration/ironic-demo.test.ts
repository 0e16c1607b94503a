import test from 'ava';
import { startIronic } from '../support/ironic.ts';
import { lines, metalfleet } from '../cli/run.ts';

test('ironic demo - metalfleet demo --ironic drives a real Ironic and exits 0', async (t) => {
  const ironic = await startIronic();
  try {
    const r = await metalfleet('demo', '--ironic', ironic.url, '--ironic-driver', 'fake-hardware', '--ironic-poll-ms', '100', '--hosts', '6', '--json', '--timeout', '90');
    t.is(r.code, 0, r.stderr);
    const summary = JSON.parse(lines(r.stdout).at(-1) ?? '{}') as { ok: boolean; hosts: number; byState: Record<string, number> };
    t.true(summary.ok);
    t.is(summary.hosts, 6);
    const nodes = (await (await fetch(`${ironic.url}/v1/nodes?fields=name,provision_state`, { headers: { 'X-OpenStack-Ironic-API-Version': '1.81' } })).json()) as { nodes: Array<{ name: string; provision_state: string }> };
    t.is(nodes.nodes.length, 6);
    t.is(nodes.nodes.filter((n) => n.provision_state === 'active').length, summary.byState['provisioned'] ?? 0);
    t.true(nodes.nodes.every((n) => n.name.startsWith('metal3~')));
  } finally {
    await ironic.stop();
  }
});

test('ironic demo - an unreachable Ironic is a one-line error', async (t) => {
  const r = await metalfleet('demo', '--ironic', 'http://127.0.0.1:9', '--hosts', '2');
  t.is(r.code, 1);
  t.regex(r.stderr.trim(), /^metalfleet: Ironic at http:\/\/127\.0\.0\.1:9: /);
  t.is(lines(r.stderr).length, 1);
});

test('ironic demo - a driver other than fake-hardware is refused', async (t) => {
  const r = await metalfleet('demo', '--ironic', 'http://127.0.0.1:9', '--ironic-driver', 'ipmi');
  t.is(r.code, 2);
  t.regex(r.stderr, /--ironic-driver: only "fake-hardware" can replace the real driver \(got "ipmi"\)/);
});
