// The baseline: the same Ironic calls metalfleet makes for a host's whole life, as a plain
// concurrent loop with raw HTTP and a fixed poll, no actors, no state machine.
const VERSION = { 'X-OpenStack-Ironic-API-Version': '1.81', 'Content-Type': 'application/json' };

interface Node { uuid: string; provision_state: string; target_provision_state: string | null; inspection_finished_at?: string | null }

export async function plainLoop(url: string, names: readonly string[], concurrency: number, pollMs: number): Promise<{ seconds: number; calls: number }> {
  let calls = 0;
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    for (;;) {
      calls += 1;
      const res = await fetch(`${url}${path}`, { method, headers: VERSION, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await res.text();
      if (res.status === 409) {
        await sleep(pollMs);
        continue;
      }
      if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
      return text ? JSON.parse(text) : null;
    }
  };
  const settle = async (id: string, done: (n: Node) => boolean): Promise<Node> => {
    for (;;) {
      const n = (await call('GET', `/v1/nodes/${id}`)) as Node;
      if (!n.target_provision_state && done(n)) return n;
      await sleep(pollMs);
    }
  };
  const target = (id: string, t: string, extra: Record<string, unknown> = {}) => call('PUT', `/v1/nodes/${id}/states/provision`, { target: t, ...extra });
  const lifecycle = async (name: string, i: number): Promise<void> => {
    const node = (await call('POST', '/v1/nodes', {
      name, driver: 'fake-hardware',
      driver_info: { redfish_address: `https://10.2.${i >> 8}.${i & 255}`, redfish_system_id: '/redfish/v1/Systems/1', redfish_username: 'admin', redfish_password: 'bench' },
      boot_interface: 'fake', deploy_interface: 'fake', inspect_interface: 'fake', management_interface: 'fake', power_interface: 'fake', raid_interface: 'fake', vendor_interface: 'fake', bios_interface: 'fake',
      properties: { capabilities: 'boot_mode:uefi' },
    })) as Node;
    const id = node.uuid;
    await call('POST', '/v1/ports', { node_uuid: id, address: `52:54:01:${hex(i >> 16)}:${hex(i >> 8)}:${hex(i)}`, pxe_enabled: true });
    await target(id, 'manage');
    await settle(id, (n) => n.provision_state === 'manageable');
    await target(id, 'inspect');
    await settle(id, (n) => n.provision_state === 'manageable' && Boolean(n.inspection_finished_at));
    await call('PATCH', `/v1/nodes/${id}`, [{ op: 'replace', path: '/automated_clean', value: true }]);
    await target(id, 'provide');
    await settle(id, (n) => n.provision_state === 'available');
    await call('PATCH', `/v1/nodes/${id}`, [{ op: 'add', path: '/instance_uuid', value: crypto.randomUUID() }, { op: 'add', path: '/instance_info', value: { image_source: 'http://images.lab/os.qcow2', image_os_hash_algo: 'sha256', image_os_hash_value: 'a'.repeat(64) } }]);
    await call('GET', `/v1/nodes/${id}/validate`);
    await target(id, 'active', { configdrive: { meta_data: { uuid: id, name } } });
    await settle(id, (n) => n.provision_state === 'active');
    await call('PATCH', `/v1/nodes/${id}`, [{ op: 'replace', path: '/automated_clean', value: true }]);
    await target(id, 'deleted');
    await settle(id, (n) => n.provision_state === 'available');
    await call('PATCH', `/v1/nodes/${id}`, [{ op: 'remove', path: '/instance_uuid' }]);
    await call('DELETE', `/v1/nodes/${id}`);
  };
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, async () => {
    while (next < names.length) {
      const i = next++;
      await lifecycle(names[i] ?? `n${i}`, i);
    }
  }));
  return { seconds: (performance.now() - started) / 1000, calls };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function hex(n: number): string {
  return (n & 0xff).toString(16).padStart(2, '0');
}
