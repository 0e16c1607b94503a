// What changed between Ironic releases that the private Ironic's configuration must follow, each
// with the release that brought it (openstack/ironic's setup.cfg entry points and conf/agent.py).
import { atLeast } from './version.ts';
import type { IronicRelease } from './version.ts';

export interface IronicFeatures {
  /** The `agent` inspect interface (22.1, API 1.84); 21.4 refuses to start if it is enabled. */
  readonly agentInspect: boolean;
  /** The `redfish` firmware interface (23.0; the firmware interface itself came in 22.1, API 1.86). */
  readonly redfishFirmware: boolean;
  /** `[agent] require_tls` defaults to true (26.0): plain-http agent callbacks are refused. */
  readonly requireTlsByDefault: boolean;
}

export function ironicFeatures(v: IronicRelease): IronicFeatures {
  return {
    agentInspect: atLeast(v, 22, 1),
    redfishFirmware: atLeast(v, 23, 0),
    requireTlsByDefault: atLeast(v, 26, 0),
  };
}
