import type { Refusal } from '../agent/index.ts';
import type { SimSystemSpec } from '../redfish/index.ts';

export interface DatacenterOptions {
  /** How many servers, or each one's BMC spec (MACs, credentials, faults...). */
  readonly systems: number | readonly SimSystemSpec[];
  /**
   * Ironic's API as the deploy ISO carries it (virtual media boots; network boots read it from
   * the iPXE config Ironic wrote). May be given later with `useIronic`.
   */
  readonly ironicUrl?: string;
  /** BMCs over HTTPS with a self-signed certificate (redfish.certificate): Ironic needs redfish_verify_ca=false or that PEM. */
  readonly tls?: boolean;
  /** The BMCs' port; default a free one. */
  readonly redfishPort?: number;
  /** OS images served beside the deploy ramdisk (name → contents); default one `os.img`. */
  readonly images?: Readonly<Record<string, Buffer | string>>;
  /** Agent heartbeat period; default as IPA (from Ironic's heartbeat_timeout). */
  readonly heartbeatIntervalMs?: number;
  /** Least gap between heartbeats after a command ends; default as IPA (5 s). */
  readonly minHeartbeatGapMs?: number;
  /**
   * Ironic refused a server's agent (a heartbeat, its inspection data): the first time, on a new
   * message and as the run doubles. Without it the refusal is still in the server's journal and
   * the agent's lastError.
   */
  readonly onAgentRefused?: (serverId: string, refusal: Refusal) => void;
}
