export { maasClusterLogic, maasClusterLogicFor, viewMaasCluster } from './logic.ts';
export type { MaasClusterLogic } from './logic.ts';
export { stepMaasCluster, initialMaasClusterState } from './step.ts';
export { DEFAULT_MAAS_CLUSTER_CONFIG } from './types.ts';
export type {
  DnsCall, DnsCallResult, DnsRecordView, IpCall, IpCallResult, MachineNic, MaasClusterConfig, MaasClusterEffect, MaasClusterEvent, MaasClusterPhase,
  MaasClusterState, MaasClusterStep, MaasClusterWorld,
} from './types.ts';
export { planDns, dnsDomainOf, dnsNameFor, dnsSuffixOf } from './dns-plan.ts';
export type { ControlPlaneMember, DnsPlan } from './dns-plan.ts';
export { controlPlaneMembers } from './members.ts';
export { chosenAddress, describeChoice } from './interface-choice.ts';
export { HELD_BY_ANOTHER_USER, heldByAnotherUserMessage } from './held.ts';
