import type { IronicRelease } from './version.ts';
// What a local Ironic process is started with, and the handle it is driven through.
export interface IronicServer {
  /** http://127.0.0.1:PORT (no /v1). */
  readonly url: string;
  readonly port: number;
  /** The private folder: ironic.conf, ironic.db, ironic.log. Removed by stop(). */
  readonly dir: string;
  /** The installed Ironic's release, which its configuration followed. */
  readonly release: IronicRelease;
  stop(): Promise<void>;
  /** "Ironic lost its database": stop, delete the DB, create the schema, start on the same port. */
  restartEmpty(): Promise<void>;
  /** Stop and start again on the same port with the same DB. */
  restart(): Promise<void>;
  /** The last lines Ironic wrote (stderr and stdout), for failure messages. */
  logTail(lines?: number): string;
}

/** Interfaces of fake-hardware that can be slowed down (seconds; a pair is a random range). */
export type FakeDelayKind = 'power' | 'boot' | 'deploy' | 'vendor' | 'management' | 'inspect' | 'raid' | 'bios' | 'storage' | 'rescue';

export interface StartIronicOptions {
  /** A fixed port; by default a free one is picked. */
  port?: number;
  /**
   * Make fake-hardware steps take time (whole seconds; Ironic's [fake] options), e.g. to hold a
   * node lock long enough to meet a 409, or to see several deployments overlap.
   */
  fakeDelays?: Partial<Record<FakeDelayKind, number | readonly [number, number]>>;
  /** How long to wait for the API to answer; default 60 s. */
  startTimeoutMs?: number;
  /**
   * Where the (i)PXE and virtual-media boot files Ironic writes are served from: `root` becomes
   * Ironic's [deploy]http_root and `url` its http_url. The virtual datacenter serves it; without
   * one, nodes with the ipxe or redfish-virtual-media boot interface fail validation.
   */
  bootServer?: { readonly url: string; readonly root: string };
  /** ironic.conf lines appended at the end (sections included; oslo.config: the last value wins). */
  extraConfig?: string;
  /**
   * Give Ironic's sushy the standard_registries/ folder Debian's python3-sushy lacks (see
   * sushy-overlay.ts), without which Ironic 21.4 reads no BIOS attribute registry. Default false:
   * Ironic as installed.
   */
  sushyRegistries?: boolean;
}
