import { LEASE_NOT_HELD } from '../actors/host/host-call.ts';
import type { MaasDriver } from '../ports/index.ts';

/**
 * The MAAS driver of one shard's actors: every call that changes MAAS (allocate, deploy, release,
 * power, DNS writes) leaves only while the shard's lease is safely held, asked at the moment of
 * the call. MAAS has no compare-and-set on ownership, so a node resumed from a pause must stop
 * itself here, before the request goes out. Reads pass: they change nothing.
 */
export function leaseGuardedDriver(driver: MaasDriver, held: () => boolean): MaasDriver {
  const refuse = (): Error => new Error(LEASE_NOT_HELD);
  return {
    endpoint: driver.endpoint,
    pool: driver.pool,
    run: (call, userData) => (held() ? driver.run(call, userData) : Promise.resolve({ kind: 'transient', message: LEASE_NOT_HELD })),
    findDns: (fqdn) => driver.findDns(fqdn),
    createDns: (fqdn, ttl, ips) => (held() ? driver.createDns(fqdn, ttl, ips) : Promise.reject(refuse())),
    updateDns: (id, ips) => (held() ? driver.updateDns(id, ips) : Promise.reject(refuse())),
    deleteDns: (id) => (held() ? driver.deleteDns(id) : Promise.reject(refuse())),
  };
}
