// The verbs of PUT /v1/nodes/{node}/states/provision and .../states/power.

export type ProvisionTarget =
  | 'manage'
  | 'provide'
  | 'inspect'
  | 'active'
  | 'deleted'
  | 'rebuild'
  | 'clean'
  | 'abort'
  | 'adopt'
  | 'rescue'
  | 'unrescue'
  | 'deploy'
  | 'undeploy'
  | 'service'
  | 'unhold';

export type PowerTarget = 'power on' | 'power off' | 'rebooting' | 'soft power off' | 'soft rebooting';

export interface ProvisionExtra {
  /** A gzipped, base64 ISO (or a URL) as a string, or an object Ironic builds one from (1.56). */
  configdrive?: string | Record<string, unknown>;
  cleanSteps?: unknown[];
  /** With target "service" (API 1.87): the steps run on an active node, its instance kept. */
  serviceSteps?: unknown[];
  deploySteps?: unknown[];
  disableRamdisk?: boolean;
}
