// What the Service REST storage allocates (pkg/registry/core/service/storage): a cluster IP from
// the service CIDR (kubeadm's default 10.96.0.0/12; .1 is the `kubernetes` Service's), the IP
// family fields of a single-stack IPv4 cluster, and node ports from 30000-32767. An update keeps
// what was allocated when the new object leaves it out (patchAllocatedValues), so `kubectl
// replace` of the original file works.
import { randomInt } from 'node:crypto';
import type { Store } from './store.ts';
import { isObj } from './types.ts';
import type { Obj } from './types.ts';

const SERVICES = 'services';
const CIDR_BASE = (10 << 24) | (96 << 16);
const CIDR_SIZE = 1 << 20;
const NODE_PORTS: readonly [number, number] = [30000, 32767];

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : (o.spec = {}));

function ipString(n: number): string {
  return [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
}

function inUse(store: Store): { ips: Set<string>; ports: Set<number> } {
  const ips = new Set<string>([ipString(CIDR_BASE + 1)]);
  const ports = new Set<number>();
  for (const s of store.list(SERVICES)) {
    const spec = specOf(s);
    for (const ip of Array.isArray(spec.clusterIPs) ? spec.clusterIPs : []) ips.add(String(ip));
    for (const p of objects(spec.ports)) if (typeof p.nodePort === 'number') ports.add(p.nodePort);
  }
  return { ips, ports };
}

function pick<T>(next: () => T, used: Set<T>): T {
  for (;;) {
    const v = next();
    if (!used.has(v)) {
      used.add(v);
      return v;
    }
  }
}

export function allocateService(store: Store, obj: Obj): void {
  const spec = specOf(obj);
  if (spec.type === 'ExternalName') return;
  const used = inUse(store);
  const headless = spec.clusterIP === 'None';
  if (!spec.clusterIP) spec.clusterIP = pick(() => ipString(CIDR_BASE + randomInt(2, CIDR_SIZE - 1)), used.ips);
  if (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) spec.clusterIPs = [spec.clusterIP];
  if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
  // Headless Services without a selector default to RequireDualStack (services-networking/dual-stack).
  const selectorless = !isObj(spec.selector) || Object.keys(spec.selector).length === 0;
  if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = headless && selectorless ? 'RequireDualStack' : 'SingleStack';
  if (spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false)) {
    for (const p of objects(spec.ports)) if (p.nodePort === undefined) p.nodePort = pick(() => randomInt(NODE_PORTS[0], NODE_PORTS[1] + 1), used.ports);
  }
}

export function keepAllocated(next: Obj, old: Obj): void {
  const spec = specOf(next);
  const was = specOf(old);
  if (spec.type !== was.type && spec.type === 'ExternalName') return;
  for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) if (spec[k] === undefined && was[k] !== undefined) spec[k] = was[k];
  const oldPorts = objects(was.ports);
  for (const p of objects(spec.ports)) {
    const same = oldPorts.find((o) => o.port === p.port && o.protocol === p.protocol);
    if (p.nodePort === undefined && same?.nodePort !== undefined) p.nodePort = same.nodePort;
  }
}
