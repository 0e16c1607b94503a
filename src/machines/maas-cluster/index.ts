export { planDns, dnsNameFor } from './dns-plan.ts';
export type { ControlPlaneMember, DnsPlan } from './dns-plan.ts';
