// The kube-vip static pod a control-plane machine of a VIP cluster carries in its user data: added
// to a #cloud-config's write_files, or beside a script or multipart in a MIME multipart (read back
// with Python's email package, as cloud-init reads it); refused for Ignition.
import { execFileSync } from 'node:child_process';
import test from 'ava';
import { parse as parseYaml } from 'yaml';
import { MaasCluster } from '../../src/api/index.ts';
import { addKubeVip, kubeVipFor, KUBE_VIP_MANIFEST_PATH } from '../../src/machines/maas-machine/index.ts';
import { maasMachine, world } from './maas-fixtures.ts';

const S = { address: '10.10.1.200', port: 6443, interface: 'eth1' };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const text = (s: string) => Buffer.from(s, 'base64').toString('utf8');
type Json = Record<string, unknown>;

function envOf(manifest: string): Record<string, string> {
  const pod = parseYaml(manifest) as { spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> } };
  return Object.fromEntries((pod.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
}

/** The MIME parts as Python's email package (what cloud-init uses) sees them. */
function mimeParts(message: string): Array<{ type: string; payload: string }> {
  const script = 'import email,json,sys\nm=email.message_from_string(sys.stdin.read())\nout=[]\nfor p in m.walk():\n  if p.is_multipart(): out.append({"type":p.get_content_type(),"payload":""}); continue\n  out.append({"type":p.get_content_type(),"payload":p.get_payload(decode=True).decode()})\nprint(json.dumps(out))';
  return JSON.parse(execFileSync('python3', ['-c', script], { input: message }).toString()) as Array<{ type: string; payload: string }>;
}

test('kube-vip user data - a #cloud-config gets one more write_files entry; what was there stays, comments too', (t) => {
  const original = '#cloud-config\n# written by the kubeadm bootstrap provider\nwrite_files:\n  - path: /run/kubeadm/kubeadm.yaml\n    content: "kind: InitConfiguration"\nruncmd:\n  - kubeadm init --config /run/kubeadm/kubeadm.yaml\n';
  const out = text(addKubeVip(b64(original), S));
  t.true(out.startsWith('#cloud-config\n# written by the kubeadm bootstrap provider\n'));
  const doc = parseYaml(out) as { write_files: Json[]; runcmd: string[] };
  t.deepEqual(doc.runcmd, ['kubeadm init --config /run/kubeadm/kubeadm.yaml']);
  t.deepEqual(doc.write_files.map((f) => f.path), ['/run/kubeadm/kubeadm.yaml', KUBE_VIP_MANIFEST_PATH]);
  const manifest = doc.write_files[1] as { content: string; owner: string; permissions: string };
  t.is(manifest.permissions, '0644');
  const env = envOf(manifest.content);
  t.is(env.address, '10.10.1.200');
  t.is(env.port, '6443');
  t.is(env.vip_interface, 'eth1');
  t.is(env.vip_arp, 'true');
  t.is(env.cp_enable, 'true');
  t.is(env.vip_leaderelection, 'true');
  t.is(env.vip_cidr, '32');
  // A second deploy of the same data does not add a second manifest.
  const twice = parseYaml(text(addKubeVip(b64(out), S))) as { write_files: Json[] };
  t.is(twice.write_files.filter((f) => f.path === KUBE_VIP_MANIFEST_PATH).length, 1);
});

test('kube-vip user data - a cloud-config without write_files gets one; no user data at all becomes a cloud-config; no interface lets kube-vip pick', (t) => {
  const doc = parseYaml(text(addKubeVip(b64('#cloud-config\npackages: [jq]\n'), S))) as { packages: string[]; write_files: Json[] };
  t.deepEqual(doc.packages, ['jq']);
  t.is(doc.write_files.length, 1);
  const bare = text(addKubeVip(undefined, { address: 'fd00:10::5', port: 8443 }));
  t.true(bare.startsWith('#cloud-config\n'));
  const env = envOf(((parseYaml(bare) as { write_files: Array<{ content: string }> }).write_files[0] as { content: string }).content);
  t.is(env.vip_interface, undefined);
  t.is(env.vip_cidr, '128');
  t.is(env.port, '8443');
});

test('kube-vip user data - a shell script is wrapped in a MIME multipart beside an appending cloud-config part', (t) => {
  const script = '#!/bin/bash\nset -e\nkubeadm join --config /run/kubeadm/kubeadm-join-config.yaml\n';
  const parts = mimeParts(text(addKubeVip(b64(script), S)));
  t.deepEqual(parts.map((p) => p.type), ['multipart/mixed', 'text/x-shellscript', 'text/cloud-config']);
  t.is(parts[1]?.payload, script);
  const config = parseYaml(parts[2]?.payload ?? '') as { merge_how: Json[]; write_files: Array<{ path: string; content: string }> };
  t.deepEqual(config.merge_how[0], { name: 'list', settings: ['append'] });
  t.is(config.write_files[0]?.path, KUBE_VIP_MANIFEST_PATH);
  t.is(envOf(config.write_files[0]?.content ?? '').address, '10.10.1.200');
});

test('kube-vip user data - a multipart keeps its parts, nested, and the manifest part follows', (t) => {
  const inner = [
    'Content-Type: multipart/mixed; boundary="XYZ"', 'MIME-Version: 1.0', '',
    '--XYZ', 'Content-Type: text/cloud-config; charset="utf-8"', '', '#cloud-config', 'runcmd: [echo hi]',
    '--XYZ', 'Content-Type: text/x-shellscript; charset="utf-8"', '', '#!/bin/sh', 'echo there',
    '--XYZ--', '',
  ].join('\n');
  const parts = mimeParts(text(addKubeVip(b64(inner), S)));
  t.deepEqual(parts.map((p) => p.type), ['multipart/mixed', 'multipart/mixed', 'text/cloud-config', 'text/x-shellscript', 'text/cloud-config']);
  t.regex(parts[2]?.payload ?? '', /runcmd: \[echo hi\]/);
  t.regex(parts[3]?.payload ?? '', /echo there/);
  t.regex(parts[4]?.payload ?? '', /kube-vip\.yaml/);
});

test('kube-vip user data - Ignition JSON and gzip are refused, naming why', (t) => {
  const ign = t.throws(() => addKubeVip(b64('{"ignition":{"version":"3.4.0"}}'), S));
  t.regex(ign?.message ?? '', /Ignition JSON.*cloud-config/);
  const gz = t.throws(() => addKubeVip(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0]).toString('base64'), S));
  t.regex(gz?.message ?? '', /gzip/);
});

test('kube-vip user data - only control-plane machines of a VIP cluster get it, and only once the VIP is reserved', (t) => {
  const vipCluster = (reserved: boolean) => MaasCluster.parse({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'default' },
    spec: { dnsDomain: 'maas', controlPlaneVIP: { subnet: '10.10.1.0/24', interface: 'eth0' }, controlPlaneEndpoint: { host: '10.10.1.2', port: 6443 } },
    status: { ready: reserved, ...(reserved ? { controlPlaneVIP: { address: '10.10.1.2', subnet: '10.10.1.0/24' } } : {}) },
  });
  t.deepEqual(kubeVipFor(maasMachine(), world({ maasCluster: vipCluster(true) })), { address: '10.10.1.2', port: 6443, interface: 'eth0' });
  t.is(kubeVipFor(maasMachine({}, {}, false), world({ maasCluster: vipCluster(true), machine: null })), null, 'a worker');
  t.is(kubeVipFor(maasMachine(), world()), null, 'a DNS cluster');
  const early = kubeVipFor(maasMachine(), world({ maasCluster: vipCluster(false) }));
  t.true(early instanceof Error);
  t.regex((early as Error).message, /has not reserved its control-plane VIP yet/);
});

test('kube-vip user data - a control-plane machine of a VIP cluster is ready without a DNS record and released without waiting on one', async (t) => {
  const { T0, start, grant, noneEarlier, tick, reply, view, calls, types, condition, observe } = await import('./maas-fixtures.ts');
  const vipCluster = MaasCluster.parse({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'default' },
    spec: { dnsDomain: 'maas', controlPlaneVIP: { subnet: '10.10.1.0/24' }, controlPlaneEndpoint: { host: '10.10.1.2', port: 6443 } },
    status: { ready: true, network: { dnsName: 'c1-abcdef.maas' }, controlPlaneVIP: { address: '10.10.1.2', subnet: '10.10.1.0/24' } },
  });
  const w = world({ maasCluster: vipCluster });
  const s1 = grant(noneEarlier(tick(start(maasMachine(), w, { skipSwap: true }))).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  const s3 = reply(s2, { kind: 'done', machine: view('Deploying') });
  const deployed = reply(tick(s3.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  t.false(types(deployed).includes('dnsLookup'));
  t.true(deployed.state.status.ready);
  t.is(condition(deployed.state, 'DNSAttached'), undefined);
  t.is(condition(deployed.state, 'Ready')?.status, 'True');
  const deleting = observe(deployed.state, maasMachine({ systemID: 'abc123' }, { deletionTimestamp: '2026-01-01T00:00:00Z' }), w, T0 + 20_000);
  t.false(types(deleting).includes('dnsLookup'));
  t.true(types(deleting).includes('requestSlot') || calls(deleting).some((c) => c.op === 'release'));
});
