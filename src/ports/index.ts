export type { Credentials, HostData, CapacityClaim, Provisioner } from './provisioner.ts';
export type { HostEvent, HostStore } from './host-store.ts';
export { StoreError, hostKey } from './host-store.ts';
export type { Logger } from './logger.ts';
export { silentLogger } from './logger.ts';
export { invoke } from './invoke.ts';
export type { ObjectEvent, ObjectKind, ObjectStore, StoredObject } from './object-store.ts';
export { objectKey } from './object-store.ts';
export type { DnsRecord, MaasDriver } from './maas-driver.ts';
