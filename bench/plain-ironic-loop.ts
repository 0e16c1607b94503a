// The baseline: the same Ironic calls metalfleet makes for a host's whole life (register, manage,
// inspect, provide with automated cleaning, deploy with a config drive, undeploy, delete), as a
// plain concurrent loop with raw HTTP and a fixed poll, no actors, no state machine. Node bodies
// are what metalfleet sends for the same host (src/adapters/ironic/provisioner/node-spec.ts).
const VERSION = { 'X-OpenStack-Ironic-API-Version': '1.81', 'Content-Type': 'application/json' };

interface Node { uuid: string; provision_state: string; target_provision_state: string | null; inspection_finished_at?: string | null; last_error?: string | null; instance_uuid?: string | null }

export interface PlainHost {
  readonly name: string;
  readonly mac: string;
  /** redfish: the real driver against a BMC; fake: fake-hardware, no BMC traffic. */
  readonly driver: 'redfish' | 'fake';
  readonly bmc: { readonly redfishAddress: string; readonly systemPath: string; readonly username: string; readonly password: string };
  readonly image: { readonly url: string; readonly sha256: string };
  readonly deploy: { readonly kernelUrl: string; readonly ramdiskUrl: string } | null;
}

// A failed state is the end of that host, not something to poll on for ever.
const FAILED = new Set(['enroll', 'inspect failed', 'clean failed', 'deploy failed', 'error']);

export interface PlainResult { seconds: number; calls: number; byRoute: Record<string, number> }

// Raw HTTP to Ironic with a fixed poll: every call counted by route, a locked node (409) retried
// after one poll period, as both loops below do it.
function ironicCaller(url: string, pollMs: number) {
  const counts = { calls: 0, byRoute: {} as Record<string, number> };
  const call = async (method: string, path: string, body?: unknown, o: { missingOk?: boolean } = {}): Promise<unknown> => {
    const route = `${method} ${path.split('?')[0]?.replace(/^\/v1\/nodes\/[^/]+/, '/v1/nodes/{node}')}`;
    for (;;) {
      counts.calls += 1;
      counts.byRoute[route] = (counts.byRoute[route] ?? 0) + 1;
      const res = await fetch(`${url}${path}`, { method, headers: VERSION, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await res.text();
      if (res.status === 409) {
        await sleep(pollMs);
        continue;
      }
      if (res.status === 404 && o.missingOk) return null;
      if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
      return text ? JSON.parse(text) : null;
    }
  };
  const settle = async (id: string, done: (n: Node) => boolean): Promise<Node> => {
    for (;;) {
      const n = (await call('GET', `/v1/nodes/${id}`)) as Node;
      if (!n.target_provision_state && done(n)) return n;
      if (!n.target_provision_state && FAILED.has(n.provision_state) && n.last_error) throw new Error(`plain loop: node ${id} is ${n.provision_state}: ${n.last_error}`);
      await sleep(pollMs);
    }
  };
  const target = (id: string, t: string, extra: Record<string, unknown> = {}): Promise<unknown> => call('PUT', `/v1/nodes/${id}/states/provision`, { target: t, ...extra });
  return { counts, call, settle, target };
}

// `concurrency` workers taking the next host until none is left.
async function workers(hosts: readonly PlainHost[], concurrency: number, each: (h: PlainHost) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, hosts.length) }, async () => {
    while (next < hosts.length) {
      const h = hosts[next++];
      if (h) await each(h);
    }
  }));
  return (performance.now() - started) / 1000;
}

// Register (BMO's lookups, node, boot-MAC port) and bring the node to manageable: what BMO, and
// metalfleet, do before a host with inspection disabled and nothing to prepare counts as
// available. BMO provides (automated clean) only when it deploys, so available is Ironic's
// manageable here.
export async function plainEnroll(url: string, hosts: readonly PlainHost[], concurrency: number, pollMs: number, onEnrolled?: (done: number) => void): Promise<PlainResult> {
  const { counts, call, settle, target } = ironicCaller(url, pollMs);
  let enrolled = 0;
  const seconds = await workers(hosts, concurrency, async (h) => {
    const name = `plain~${h.name}`;
    await call('GET', `/v1/nodes/${encodeURIComponent(name)}`, undefined, { missingOk: true });
    await call('GET', `/v1/ports?address=${encodeURIComponent(h.mac)}`);
    const node = (await call('POST', '/v1/nodes', nodeBody(name, h))) as Node;
    await call('POST', '/v1/ports', { node_uuid: node.uuid, address: h.mac, pxe_enabled: true });
    await target(node.uuid, 'manage');
    await settle(node.uuid, (n) => n.provision_state === 'manageable');
    onEnrolled?.(++enrolled);
  });
  return { seconds, calls: counts.calls, byRoute: counts.byRoute };
}

export async function plainLoop(url: string, hosts: readonly PlainHost[], concurrency: number, pollMs: number): Promise<PlainResult> {
  const { counts, call, settle, target } = ironicCaller(url, pollMs);
  const lifecycle = async (h: PlainHost): Promise<void> => {
    const name = `plain~${h.name}`;
    // The lookup before creating (BMO's): by name, then by the boot MAC's port.
    await call('GET', `/v1/nodes/${encodeURIComponent(name)}`, undefined, { missingOk: true });
    await call('GET', `/v1/ports?address=${encodeURIComponent(h.mac)}`);
    const node = (await call('POST', '/v1/nodes', nodeBody(name, h))) as Node;
    const id = node.uuid;
    await call('POST', '/v1/ports', { node_uuid: id, address: h.mac, pxe_enabled: true });
    await target(id, 'manage');
    await settle(id, (n) => n.provision_state === 'manageable');
    await target(id, 'inspect');
    await settle(id, (n) => n.provision_state === 'manageable' && Boolean(n.inspection_finished_at));
    // What inspection found (the host's hardware details).
    await call('GET', `/v1/nodes/${id}/inventory`, undefined, { missingOk: true });
    await call('PATCH', `/v1/nodes/${id}`, [{ op: 'replace', path: '/automated_clean', value: true }]);
    await target(id, 'provide');
    await settle(id, (n) => n.provision_state === 'available');
    const instanceUuid = crypto.randomUUID();
    await call('PATCH', `/v1/nodes/${id}`, [
      { op: 'add', path: '/instance_uuid', value: instanceUuid },
      { op: 'add', path: '/instance_info', value: { capabilities: { boot_mode: 'uefi' }, image_source: h.image.url, image_disk_format: 'raw', image_os_hash_algo: 'sha256', image_os_hash_value: h.image.sha256 } },
    ]);
    await call('GET', `/v1/nodes/${id}/validate`);
    await target(id, 'active', { configdrive: { meta_data: { uuid: instanceUuid, 'metal3-namespace': 'bench', 'metal3-name': h.name, 'local-hostname': h.name, local_hostname: h.name, name } } });
    await settle(id, (n) => n.provision_state === 'active');
    await call('PATCH', `/v1/nodes/${id}`, [{ op: 'replace', path: '/automated_clean', value: true }]);
    await target(id, 'deleted');
    const undeployed = await settle(id, (n) => n.provision_state === 'available');
    // Ironic clears it on undeploy; a node deleted with one set is refused.
    if (undeployed.instance_uuid) await call('PATCH', `/v1/nodes/${id}`, [{ op: 'remove', path: '/instance_uuid' }]);
    await call('DELETE', `/v1/nodes/${id}`);
  };
  const seconds = await workers(hosts, concurrency, lifecycle);
  return { seconds, calls: counts.calls, byRoute: counts.byRoute };
}

// What metalfleet creates for a redfish+http:// BMC (the ipxe boot, redfish inspection, direct
// deploy), or for fake-hardware with every interface fake.
function nodeBody(name: string, h: PlainHost): Record<string, unknown> {
  const driverInfo = {
    redfish_address: h.bmc.redfishAddress, redfish_username: h.bmc.username, redfish_password: h.bmc.password, redfish_system_id: h.bmc.systemPath,
    ...(h.deploy ? { deploy_kernel: h.deploy.kernelUrl, deploy_ramdisk: h.deploy.ramdiskUrl } : {}),
  };
  const properties = { capabilities: 'boot_mode:uefi' };
  if (h.driver === 'fake') {
    return {
      name, driver: 'fake-hardware', driver_info: driverInfo, properties,
      boot_interface: 'fake', deploy_interface: 'fake', inspect_interface: 'fake', management_interface: 'fake', power_interface: 'fake', raid_interface: 'fake', vendor_interface: 'fake', bios_interface: 'fake',
    };
  }
  return { name, driver: 'redfish', driver_info: driverInfo, properties, boot_interface: 'ipxe', raid_interface: 'redfish', inspect_interface: 'redfish', deploy_interface: 'direct' };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
