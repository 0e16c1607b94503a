// The MAAS 2.0 REST client, driving machines and DNS the way CAPMAAS does: OAuth 1.0 (PLAINTEXT
// or HMAC-SHA1), form bodies with sorted keys and repeated multi-values, typed errors that know
// whether to retry, zod-parsed answers, and no part of the API key or user data in any error.
export { createMaasClient } from './client.ts';
export type {
  AllocateConstraints,
  CreateDnsResource,
  DeployOptions,
  DnsQuery,
  LinkMode,
  LinkSubnetOptions,
  MaasClient,
  MachineQuery,
  MachineUpdate,
  ReleaseOptions,
  ReserveIp,
  UpdateDnsResource,
} from './client.ts';
export { IpAddress } from './ip-calls.ts';
export { MaasUser } from './user-calls.ts';
export type { MaasClientOptions, MaasTls, Retries } from './options.ts';
export { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from './options.ts';
export { MaasError } from './errors.ts';
export type { MaasErrorCode, MaasErrorDetails } from './errors.ts';
export { MaasMachine } from './machine.ts';
export { DnsResource } from './dns-resource.ts';
export { BootResource, imageKeyOf, splitImage } from './image.ts';
export { InterfaceLink, MaasInterface } from './interface-calls.ts';
export { parseApiKey } from './api-key.ts';
export type { ApiKey } from './api-key.ts';
export { baseStringUri, hmacSha1Signature, newNonce, normalizedParameters, oauthAuthorization, signatureBaseString } from './oauth.ts';
export type { OAuthNonce, RequestToSign, SignatureMethod } from './oauth.ts';
export { encodeForm, formPairs } from './form.ts';
export type { FormPairs } from './form.ts';
export { percentEncode } from './percent-encode.ts';
export type { CallStats } from '../../http/index.ts';
export { MASK } from './redact.ts';
