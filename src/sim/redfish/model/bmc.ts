// What a BMC's firmware does beyond the server model: the Base message registry its errors cite
// and its InsertMedia quirks. `standard` is a current BMC (Base.1.8, optional parameters
// optional). `legacy-transfer-protocol` is the older firmware sushy's story 2009871 was written
// for (Nokia servers): it cites Base.1.5 and its InsertMedia refuses a request without the
// TransferProtocolType parameter (ActionParameterMissing naming #/TransferProtocolType), on which
// sushy retries with the protocol of the image URL.
export const BMC_PROFILES = ['standard', 'legacy-transfer-protocol'] as const;
export type BmcProfileName = (typeof BMC_PROFILES)[number];

export interface BmcProfile {
  /** The prefix of every MessageId and error code it sends: Base.<major>.<minor>. */
  baseRegistry: string;
  /** InsertMedia refuses a body without TransferProtocolType. */
  insertMediaNeedsTransferProtocol: boolean;
}

const PROFILES: Record<BmcProfileName, BmcProfile> = {
  standard: { baseRegistry: 'Base.1.8', insertMediaNeedsTransferProtocol: false },
  'legacy-transfer-protocol': { baseRegistry: 'Base.1.5', insertMediaNeedsTransferProtocol: true },
};

export function bmcProfile(name: BmcProfileName): BmcProfile {
  return PROFILES[name];
}
