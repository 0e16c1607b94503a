import type { BareMetalHost } from '../../api/index.ts';
import { redactUrl } from '../../api/bmc/index.ts';
import type { CallArgs, Operation } from './types.ts';

// The Kubernetes Event reasons and messages BMO emits where a dashboard or `kubectl get events`
// expects them (pkg/provisioner/ironic: register.go, inspecthardware.go, ironic.go; the
// controller's BMCAccessValidated, InspectionSkipped and Discovered). metalfleet's own
// StateChanged events stay beside them. Pure: what happened in, the event out.

export interface BmoEvent {
  readonly severity: 'Normal';
  readonly reason: string;
  readonly message: string;
}

const normal = (reason: string, message: string): BmoEvent => ({ severity: 'Normal', reason, message });

/**
 * What a deploy puts on the host, as the events name it. BMO quotes the image URL; Events are read
 * by more people than the host's spec, so userinfo and the query (signed URLs carry tokens there)
 * are left out.
 */
function deployed(customDeploy: string | undefined, imageUrl: string | undefined): string {
  if (customDeploy) return `custom deploy ${customDeploy}`;
  return redactUrl(imageUrl ?? '').replace(/[?#].*$/s, '');
}

/** The event of an operation's first call in a state: the backend starts the work. */
export function startedEvent(args: CallArgs): BmoEvent | null {
  switch (args.op) {
    case 'inspect': return normal('InspectionStarted', 'Hardware inspection started');
    case 'provision': return normal('ProvisioningStarted', `Image provisioning started for ${deployed(args.customDeploy, args.image?.url)}`);
    case 'deprovision': return normal('DeprovisioningStarted', 'Image deprovisioning started');
    default: return null;
  }
}

/** The events of an operation the backend reports done, as BMO publishes them on completion. */
export function doneEvents(op: Operation, host: BareMetalHost, register: { firstRegistration: boolean; credentialsValidated: boolean }): BmoEvent[] {
  switch (op) {
    // BMO: "Registered" when the node is created, "BMCAccessValidated" when credentials not
    // validated before (a new Secret or a new version of it) worked.
    case 'register': return [
      ...(register.firstRegistration ? [normal('Registered', 'Registered new host')] : []),
      ...(register.credentialsValidated ? [normal('BMCAccessValidated', 'Verified access to BMC')] : []),
    ];
    case 'inspect': return [normal('InspectionComplete', 'Hardware inspection completed')];
    case 'provision': return [normal('ProvisioningComplete', `Image provisioning completed for ${deployed(host.spec.customDeploy?.method, host.spec.image?.url)}`)];
    case 'deprovision': return [normal('DeprovisioningComplete', 'Image deprovisioning completed')];
    // BMO publishes these when Ironic takes the request; here when the host is seen in that state.
    case 'powerOn': return [normal('PowerOn', 'Host powered on')];
    // A disablePowerOff host's power-off is a reboot, announced as Rebooted by the machine.
    case 'powerOff': return host.spec.disablePowerOff ? [] : [normal('PowerOff', 'Host powered off')];
    default: return [];
  }
}

export const INSPECTION_SKIPPED = normal('InspectionSkipped', 'disabled by user');
export const DISCOVERED = normal('Discovered', 'Discovered host with no BMC details');
