import type { BareMetalHost } from '../../api/index.ts';
import { demoExpectation } from '../../adapters/fixture/index.ts';
import type { HostSummary } from '../../node/index.ts';

export interface Expectation {
  readonly state: string; // a provisioning state or 'any'
  readonly errorType: string; // '' = no error
  readonly poweredOn?: boolean;
}

// Where each host must settle for the demo to pass.
export function expectationFor(host: BareMetalHost, demoScenarios = true): Expectation {
  const demo = demoScenarios ? demoExpectation(host.metadata.name) : null;
  if (demo) return { state: demo.state, errorType: demo.errorType ?? '' };
  const { spec } = host;
  if (!spec.bmc?.address && !spec.bmc?.credentialsName) return { state: 'unmanaged', errorType: '' };
  if (spec.externallyProvisioned) return { state: 'externally provisioned', errorType: '', poweredOn: spec.online };
  const hasImage = Boolean(spec.image?.url) || Boolean(spec.customDeploy?.method);
  if (hasImage && spec.online) return { state: 'provisioned', errorType: '', poweredOn: true };
  return { state: 'available', errorType: '', poweredOn: spec.online };
}

export function meets(summary: HostSummary | undefined, e: Expectation): boolean {
  if (!summary) return false;
  if (e.state !== 'any' && summary.state !== e.state) return false;
  if (summary.errorType !== e.errorType) return false;
  return e.poweredOn === undefined || summary.poweredOn === e.poweredOn;
}
