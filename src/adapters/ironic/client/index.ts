// The Ironic REST client: microversion negotiation, a feature table, typed errors that know
// whether to retry, zod-parsed answers, and no secret in any error text.
export { createIronicClient } from './client.ts';
export type { IronicClient } from './client.ts';
export type { IronicClientOptions, IronicAuth, IronicTls, LockedRetries } from './options.ts';
export { DEFAULT_LOCKED_RETRIES, DEFAULT_TIMEOUT_MS, DEFAULT_VERSION_TTL_MS } from './options.ts';
export { IronicError } from './errors.ts';
export type { IronicErrorCode, IronicErrorDetails } from './errors.ts';
export { FEATURES, NODE_FIELD_FEATURES, featureShortfall, featureVersion, versionSupports } from './features.ts';
export type { Feature, Negotiated } from './features.ts';
export { BASELINE_VERSION, NEWEST_KNOWN_VERSION, compareVersions, parseApiVersion } from './version.ts';
export type { ApiVersion } from './version.ts';
export { IronicNode, NodeInventory } from './node.ts';
export type { CreateNode, JsonPatch, ValidationResult } from './node.ts';
export { IronicPort } from './port.ts';
export { BiosSetting, FirmwareComponent } from './firmware.ts';
export type { PowerTarget, ProvisionExtra, ProvisionTarget } from './states.ts';
export type { CallStats } from '../../http/index.ts';
export { MASK } from './redact.ts';
