import type { NodeRecord } from './node.ts';

// Everything the server stores: nodes (by uuid, with their database id) and ports.

export interface PortRecord {
  uuid: string;
  address: string;
  node_uuid: string;
  pxe_enabled: boolean;
  physical_network: string | null;
  local_link_connection: Record<string, unknown>;
  extra: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
}

export class Store {
  readonly nodes = new Map<string, NodeRecord>();
  readonly ports = new Map<string, PortRecord>();
  private nextId = 1;

  newId(): number {
    return this.nextId++;
  }

  /** By uuid or name (ironic/api/controllers/v1/utils.py get_rpc_node). */
  find(ref: string): NodeRecord | null {
    const byUuid = this.nodes.get(ref);
    if (byUuid) return byUuid;
    for (const n of this.nodes.values()) if (n.fields.name === ref) return n;
    return null;
  }
}
