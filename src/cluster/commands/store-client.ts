// The client side of store requests (store-messages.ts): what `metalfleet apply` and `delete`
// send a node, one object each, signed when a key is given.
import { encode, subjects as defaultSubjects, type Subjects } from '../../bus/index.ts';
import type { Transport } from '../../ports/index.ts';
import { signRequest, type SigningKey } from '../../security/index.ts';
import { signedCall } from './signed-call.ts';
import { StoreApplyReply, StoreApplyRequest, StoreDeleteReply, StoreDeleteRequest, type StoreApplyInput, type StoreDeleteInput } from './store-messages.ts';

export interface StoreCallOptions {
  readonly signingKey?: SigningKey | undefined;
  readonly timeoutMs?: number;
  readonly deadlineMs?: number;
  readonly subjects?: Subjects;
}

// Room for the reply envelope and NATS headers: a request this close to the limit is refused.
const ENVELOPE_ALLOWANCE = 1_024;

/** Bytes the request takes on the wire, signed as it would be (the signature adds ~200 bytes). */
export function storeRequestSize(request: StoreApplyInput, signingKey: SigningKey | undefined, subjects: Subjects = defaultSubjects()): number {
  const parsed = StoreApplyRequest.parse(request);
  return (signingKey ? encode(signRequest(signingKey, subjects.storeApply, parsed)) : encode(parsed)).length;
}

/** The largest request a transport carries, leaving room for what wraps it. */
export function storeRequestLimit(transport: Transport): number {
  return transport.maxPayload - ENVELOPE_ALLOWANCE;
}

export async function applyThroughNode(transport: Transport, request: StoreApplyInput, options: StoreCallOptions = {}): Promise<StoreApplyReply> {
  const subjects = options.subjects ?? defaultSubjects();
  return signedCall(transport, subjects.storeApply, StoreApplyRequest.parse(request), StoreApplyReply, {
    timeoutMs: options.timeoutMs ?? 5_000,
    deadlineMs: options.deadlineMs ?? 30_000,
    signingKey: options.signingKey,
  });
}

/** Deletes one object: `{ host }` alone is a BareMetalHost; `kind` names any kind apply takes. */
export async function deleteThroughNode(transport: Transport, target: StoreDeleteInput, options: StoreCallOptions = {}): Promise<StoreDeleteReply> {
  const subjects = options.subjects ?? defaultSubjects();
  return signedCall(transport, subjects.storeDelete, StoreDeleteRequest.parse(target), StoreDeleteReply, {
    timeoutMs: options.timeoutMs ?? 5_000,
    deadlineMs: options.deadlineMs ?? 30_000,
    signingKey: options.signingKey,
  });
}
