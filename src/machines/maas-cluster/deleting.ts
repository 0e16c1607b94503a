import { MAAS_CLUSTER_FINALIZER } from '../../api/index.ts';
import { planDns } from './dns-plan.ts';
import { controlPlaneMembers } from './members.ts';
import { publishedMembers } from './publish.ts';
import type { Turn } from './turn.ts';

// A deleting MaasCluster waits for every MaasMachine of the cluster to go (CAPMAAS §2.2
// reconcileDelete), so each control-plane machine leaves the record before the record goes. Then
// the record is deleted, which CAPMAAS never does (it leaks), and the finalizer comes off.
export function deleting(t: Turn): boolean {
  if (!(t.s.object.metadata.finalizers ?? []).includes(MAAS_CLUSTER_FINALIZER)) {
    t.transition('gone');
    return false;
  }
  const left = t.s.world.machines.length;
  // The record as MAAS holds it, read once by an owner that does not know it yet (a restart, a
  // failover): a deleting control-plane machine waits to leave it before its release, so a
  // cluster that never read it would wait for machines that wait for it.
  const fqdn = t.s.object.status?.network?.dnsName ?? t.s.status.network?.dnsName;
  if (!t.s.record && fqdn && t.s.recordAt === null) {
    t.dns({ op: 'find', fqdn });
    return false;
  }
  if (left > 0) {
    // The record still follows the control plane: deleting machines wait to leave it.
    const record = t.s.record;
    const plan = record ? planDns(record.ips, publishedMembers(t, false)?.members ?? controlPlaneMembers(t.s.world.machines)) : null;
    if (record && plan?.changed) {
      t.dns({ op: 'update', id: record.id, ips: plan.ips });
      return false;
    }
    t.s.waiting = `waiting for ${left} MaasMachine(s) of the cluster to be deleted`;
    t.requeue(t.s.config.deleteWaitMs);
    return false;
  }
  t.s.waiting = null;
  if (t.s.record) {
    t.dns({ op: 'delete', id: t.s.record.id });
    return false;
  }
  finish(t);
  return false;
}

export function finish(t: Turn, why?: string): void {
  t.effects.push({ type: 'removeFinalizer', finalizer: MAAS_CLUSTER_FINALIZER });
  t.event('Normal', 'SuccessfulDelete', why ?? (t.s.record ? `deleted DNS record ${t.s.record.fqdn}` : 'no DNS record to delete'));
  t.s.record = null;
  t.transition('gone');
}
