import { createHash } from 'node:crypto';
import { isMap, isSeq, parseDocument, stringify } from 'yaml';
import { apiServerPortOf, ipVersion, MetalfleetError } from '../../api/index.ts';
import type { MaasMachine } from '../../api/index.ts';
import type { MaasMachineWorld } from './types.ts';
import { isControlPlane } from './world.ts';

// What a control-plane machine of a VIP cluster (MaasCluster spec.controlPlaneVIP) carries in its
// user data: a kube-vip static pod, written by cloud-init's write_files to the kubelet's manifest
// folder, that holds the VIP on the leader by ARP (kube-vip's `manifest pod --controlplane --arp`,
// https://kube-vip.io/docs/installation/static/). The bootstrap data stays as it is otherwise:
// a #cloud-config gets one more write_files entry; anything else is wrapped in a MIME multipart
// beside a cloud-config part that appends (cloud-init merges parts; lists append only when told).

/** The kube-vip image the manifest runs; a release with control-plane ARP and leader election. */
export const KUBE_VIP_IMAGE = 'ghcr.io/kube-vip/kube-vip:v0.8.0';
export const KUBE_VIP_MANIFEST_PATH = '/etc/kubernetes/manifests/kube-vip.yaml';

export interface KubeVipSettings {
  readonly address: string;
  readonly port: number;
  /** Unset: kube-vip takes the interface of the default route (kube-vip #273, PR #289). */
  readonly interface?: string | undefined;
}

/**
 * The kube-vip settings a machine's deploy needs: null for a worker or a DNS cluster; an error
 * (retried) for a control-plane machine of a VIP cluster whose VIP is not reserved yet.
 */
export function kubeVipFor(object: MaasMachine, world: MaasMachineWorld): KubeVipSettings | MetalfleetError | null {
  const mc = world.maasCluster;
  const vip = mc?.spec.controlPlaneVIP;
  if (!mc || !vip || !isControlPlane(object, world)) return null;
  const address = mc.status?.controlPlaneVIP?.address;
  if (!address) return new MetalfleetError('vipNotReserved', `MaasCluster ${mc.metadata.name} has not reserved its control-plane VIP yet; deploying once it has`, true);
  const port = mc.spec.controlPlaneEndpoint?.port ?? (world.cluster ? apiServerPortOf(world.cluster) : 6443);
  return { address, port, ...(vip.interface !== undefined ? { interface: vip.interface } : {}) };
}

export function kubeVipManifest(s: KubeVipSettings): string {
  const env: Array<[string, string]> = [
    ['vip_arp', 'true'],
    ['port', String(s.port)],
    ...(s.interface !== undefined ? [['vip_interface', s.interface] as [string, string]] : []),
    ['vip_cidr', ipVersion(s.address) === 6 ? '128' : '32'],
    ['cp_enable', 'true'],
    ['cp_namespace', 'kube-system'],
    ['vip_leaderelection', 'true'],
    ['vip_leasename', 'plndr-cp-lock'],
    ['vip_leaseduration', '5'],
    ['vip_renewdeadline', '3'],
    ['vip_retryperiod', '1'],
    ['address', s.address],
  ];
  return stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'kube-vip', namespace: 'kube-system' },
    spec: {
      containers: [{
        name: 'kube-vip',
        image: KUBE_VIP_IMAGE,
        imagePullPolicy: 'IfNotPresent',
        args: ['manager'],
        env: env.map(([name, value]) => ({ name, value })),
        securityContext: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
        volumeMounts: [{ mountPath: '/etc/kubernetes/admin.conf', name: 'kubeconfig' }],
      }],
      hostAliases: [{ hostnames: ['kubernetes'], ip: '127.0.0.1' }],
      hostNetwork: true,
      volumes: [{ name: 'kubeconfig', hostPath: { path: '/etc/kubernetes/admin.conf' } }],
    },
  });
}

function manifestFile(s: KubeVipSettings): Record<string, string> {
  return { path: KUBE_VIP_MANIFEST_PATH, owner: 'root:root', permissions: '0644', content: kubeVipManifest(s) };
}

function refuse(message: string): MetalfleetError {
  return new MetalfleetError('userDataUnmergeable', message, false);
}

// A #cloud-config: the manifest joins write_files (replacing an entry for the same path, so a
// redeploy does not add a second); comments and the rest stay as written.
function intoCloudConfig(text: string, s: KubeVipSettings): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw refuse(`the bootstrap data starts with #cloud-config but is not YAML (${doc.errors[0]?.message ?? ''}); the kube-vip manifest cannot be added to it`);
  if (doc.contents !== null && !isMap(doc.contents)) throw refuse('the bootstrap data is a #cloud-config that is not a mapping; the kube-vip manifest cannot be added to it');
  const files = doc.get('write_files');
  if (files === undefined || files === null) {
    doc.set('write_files', doc.createNode([manifestFile(s)]));
  } else if (isSeq(files)) {
    const at = files.items.findIndex((item) => isMap(item) && item.get('path') === KUBE_VIP_MANIFEST_PATH);
    if (at >= 0) files.items.splice(at, 1);
    files.items.push(doc.createNode(manifestFile(s)));
  } else {
    throw refuse('the bootstrap data\'s write_files is not a list; the kube-vip manifest cannot be added to it');
  }
  const out = doc.toString();
  return out.startsWith('#cloud-config') ? out : `#cloud-config\n${out}`;
}

function base64Lines(text: string): string {
  return (Buffer.from(text, 'utf8').toString('base64').match(/.{1,76}/g) ?? []).join('\n');
}

// Anything else cloud-init reads (a script, #include, a boothook, a multipart of its own) is one
// part and the manifest another: cloud-init walks nested multiparts, and detects a part's type
// from its first line when it is text/x-not-multipart.
function wrapped(text: string, s: KubeVipSettings): string {
  const boundary = `==metalfleet-${createHash('sha256').update(text).digest('hex').slice(0, 24)}==`;
  let original: string;
  const head = /^(content-type:\s*multipart\/[^\n]*\n(?:[^\n]+\n)*?)\r?\n/i.exec(text);
  if (head) {
    // A multipart already: its own headers head the part, its body follows untouched.
    original = text;
  } else {
    const type = text.startsWith('#!') ? 'text/x-shellscript' : 'text/x-not-multipart';
    original = `Content-Type: ${type}; charset="utf-8"\nMIME-Version: 1.0\nContent-Transfer-Encoding: base64\n\n${base64Lines(text)}\n`;
  }
  const config = `#cloud-config\n${stringify({
    // Appended to, never replacing, what an earlier cloud-config part wrote.
    merge_how: [{ name: 'list', settings: ['append'] }, { name: 'dict', settings: ['no_replace', 'recurse_list'] }],
    write_files: [manifestFile(s)],
  })}`;
  return [
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    'MIME-Version: 1.0',
    '',
    `--${boundary}`,
    original.replace(/\n?$/, ''),
    `--${boundary}`,
    'Content-Type: text/cloud-config; charset="utf-8"',
    'MIME-Version: 1.0',
    'Content-Disposition: attachment; filename="kube-vip.cfg"',
    '',
    config.replace(/\n?$/, ''),
    `--${boundary}--`,
    '',
  ].join('\n');
}

/** The user data (standard base64, as MAAS takes it) with the kube-vip static pod added. */
export function addKubeVip(userDataBase64: string | undefined, s: KubeVipSettings): string {
  const bytes = Buffer.from(userDataBase64 ?? '', 'base64');
  if (bytes.subarray(0, 2).equals(Buffer.from([0x1f, 0x8b]))) throw refuse('the bootstrap data is gzip-compressed; the kube-vip manifest cannot be added to it');
  const text = bytes.toString('utf8');
  let out: string;
  if (text.trim() === '') out = `#cloud-config\n${stringify({ write_files: [manifestFile(s)] })}`;
  else if (text.startsWith('#cloud-config')) out = intoCloudConfig(text, s);
  else if (text.trimStart().startsWith('{')) throw refuse('the bootstrap data is Ignition JSON; the kube-vip manifest of a VIP cluster can only be added to cloud-init user data (use a cloud-config bootstrap format)');
  else out = wrapped(text, s);
  return Buffer.from(out, 'utf8').toString('base64');
}
