// The real Ironic's REST API as the datacenter tests drive it: nodes, ports, provision and power
// states, polled with deadlines. Nothing from metalfleet's own Ironic client, so a bug there cannot
// hide a bug in the simulators.
import { waitUntil } from '../../support/wait.ts';
import type { SimSystemInfo } from '../../../src/sim/redfish/index.ts';
import type { VirtualDatacenter } from '../../../src/sim/datacenter/index.ts';

export interface IronicNode {
  uuid: string;
  name: string | null;
  provision_state: string;
  target_provision_state: string | null;
  power_state: string | null;
  target_power_state: string | null;
  last_error: string | null;
  properties: Record<string, unknown>;
  driver_internal_info: Record<string, unknown>;
  raid_config: Record<string, unknown>;
  target_raid_config: Record<string, unknown>;
}

export class IronicApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'IronicApiError';
  }
}

export class IronicApi {
  constructor(private readonly url: string, private readonly logTail: () => string = () => '') {}

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/v1${path}`, {
      method,
      headers: { 'X-OpenStack-Ironic-API-Version': '1.81', 'Content-Type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new IronicApiError(res.status, `${method} ${path} answered ${res.status}: ${text}`);
    return (text === '' ? null : JSON.parse(text)) as T;
  }

  node(uuid: string): Promise<IronicNode> {
    return this.call<IronicNode>('GET', `/nodes/${uuid}`);
  }

  async ports(uuid: string): Promise<string[]> {
    const { ports } = await this.call<{ ports: { address: string }[] }>('GET', `/ports?node=${uuid}`);
    return ports.map((p) => p.address).sort();
  }

  provision(uuid: string, target: string, extra: Record<string, unknown> = {}): Promise<unknown> {
    return this.call('PUT', `/nodes/${uuid}/states/provision`, { target, ...extra });
  }

  power(uuid: string, target: 'power on' | 'power off' | 'rebooting'): Promise<unknown> {
    return this.call('PUT', `/nodes/${uuid}/states/power`, { target });
  }

  patch(uuid: string, ops: readonly unknown[]): Promise<unknown> {
    return this.call('PATCH', `/nodes/${uuid}`, ops);
  }

  /** Polls the node until `cond` holds; the failure names the node's state, last_error and Ironic's log. */
  async waitNode(uuid: string, cond: (n: IronicNode) => boolean, what: string, timeoutMs = 60_000): Promise<IronicNode> {
    let node = await this.node(uuid);
    try {
      await waitUntil(async () => cond((node = await this.node(uuid))), timeoutMs, what, 100);
    } catch (err) {
      throw new Error(`${(err as Error).message}: node is ${node.provision_state} (target ${String(node.target_provision_state)}), power ${String(node.power_state)}, last_error ${String(node.last_error)}\n${this.logTail()}`, { cause: err });
    }
    return node;
  }

  /**
   * Waits for a stable provision state. A *failed state, or a settled other state with last_error
   * (manage that failed leaves enroll), ends the wait at once.
   */
  async waitProvision(uuid: string, want: string, timeoutMs = 60_000): Promise<IronicNode> {
    let failed = false;
    const node = await this.waitNode(uuid, (n) => {
      if (n.provision_state === want) return n.target_provision_state === null;
      failed = /failed$/.test(n.provision_state) || (n.target_provision_state === null && n.last_error !== null);
      return failed;
    }, `node ${uuid} ${want}`, timeoutMs);
    if (failed) throw new Error(`node ${uuid} went to ${node.provision_state} waiting for ${want}: ${String(node.last_error)}\n${this.logTail()}`);
    return node;
  }

  async waitPower(uuid: string, want: 'power on' | 'power off', timeoutMs = 30_000): Promise<IronicNode> {
    return this.waitNode(uuid, (n) => n.power_state === want && n.target_power_state === null, `node ${uuid} ${want}`, timeoutMs);
  }

  /**
   * Enrols one simulated server as a `redfish` node (direct deploy, redfish inspect/raid/bios) with a
   * port per MAC, as BMO would after registration.
   */
  async enrol(dc: VirtualDatacenter, sys: SimSystemInfo, o: { name: string; boot: 'ipxe' | 'redfish-virtual-media'; password?: string; ports?: boolean; driverInfo?: Record<string, unknown>; extra?: Record<string, unknown> }): Promise<IronicNode> {
    const node = await this.call<IronicNode>('POST', '/nodes', {
      name: o.name,
      driver: 'redfish',
      boot_interface: o.boot,
      deploy_interface: 'direct',
      inspect_interface: 'redfish',
      raid_interface: 'redfish',
      bios_interface: 'redfish',
      management_interface: 'redfish',
      power_interface: 'redfish',
      driver_info: {
        redfish_address: sys.redfishAddress,
        redfish_system_id: sys.systemPath,
        redfish_username: sys.username,
        redfish_password: o.password ?? sys.password,
        deploy_kernel: dc.deployImages.kernelUrl,
        deploy_ramdisk: dc.deployImages.ramdiskUrl,
        ...(o.boot === 'redfish-virtual-media' ? { deploy_iso: dc.deployImages.isoUrl } : {}),
        ...o.driverInfo,
      },
      properties: { capabilities: 'boot_mode:uefi' },
      ...o.extra,
    });
    if (o.ports !== false) {
      for (const mac of sys.macs) await this.call('POST', '/ports', { node_uuid: node.uuid, address: mac });
    }
    return node;
  }
}
