// A BMC address that cannot be used. The message quotes the address with any userinfo redacted,
// so a password written into a URL never reaches a log, an event or a CLI error.

import { MetalfleetError } from '../metalfleet-error.ts';

export type BmcAddressErrorCode =
  | 'missing'          // empty address
  | 'unparseable'      // not a URL, host, host:port or [v6]:port
  | 'invalid-host'     // hostname neither an IP nor a DNS name
  | 'missing-host'     // a scheme but no host
  | 'invalid-port'     // port outside 1-65535
  | 'unknown-type';    // scheme not in the BMC type table

export class BmcAddressError extends MetalfleetError {
  constructor(
    override readonly code: BmcAddressErrorCode,
    message: string,
    /** The address with userinfo replaced by `xxxxx`. */
    readonly address: string,
    /** The scheme that was not recognised (`unknown-type` only). */
    readonly scheme?: string,
  ) {
    super(code, message, false);
    this.name = 'BmcAddressError';
  }
}
