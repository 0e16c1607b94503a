// BMC addresses: which driver, interfaces and capabilities an address means, and the Ironic
// driver_info it turns into (reference/bmo.md §2.2).
export { parseBmcAddress, needsBootMac } from './parse.ts';
export type { BmcParseResult } from './parse.ts';
export { BmcAddressError } from './errors.ts';
export type { BmcAddressErrorCode } from './errors.ts';
export { BMC_TYPES, BMC_TYPE_TABLE, isBmcType } from './types.ts';
export type {
  BmcAccess, BmcCredentials, BmcDriver, BmcInterfaces, BmcTransport, BmcType, BmcTypeRow,
  DriverInfo, DriverInfoOptions,
} from './types.ts';
export { validateBmcCredentials } from './credentials.ts';
// Go net/url semantics, shared with the image URL check of the BareMetalHost webhook rules.
export { parseGoUrl, redactRefused, redactUrl } from './go-url.ts';
export type { GoUrl, GoUrlResult } from './go-url.ts';
