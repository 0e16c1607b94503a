// The parts of a MaasMachine the machine reads; the API's schema type fits it.
export interface MaasMachineObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly deletionTimestamp?: string;
    readonly finalizers?: readonly string[];
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly minCPU: number;
    readonly minMemory: number;
    readonly image: string;
    readonly tags?: readonly string[];
    readonly resourcePool?: string;
    readonly failureDomain?: string;
    readonly deployInMemory?: boolean;
    readonly providerID?: string;
    readonly systemID?: string;
  };
  readonly status?: Readonly<Record<string, unknown>>;
}

export const MAAS_MACHINE_FINALIZER = 'maasmachine.infrastructure.cluster.x-k8s.io';
