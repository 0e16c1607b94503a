/**
 * Host commands over NATS.
 *
 * Subject: `<cluster>.cmd.<shard>` (`mf.cmd.<shard>` by default), request/reply. Every node
 * answers (one queue group, so each request is handled once), whether or not it owns the shard:
 * it validates the request, records the intent in the shared host store (exactly as a spec or
 * annotation change would be recorded, so it survives a restart or a change of owner) and
 * replies once that write is durable. The shard's owner acts on it from the store. A reply means
 * the intent is durable, not that the host has finished: watch the host's status for that. A
 * request on another shard's subject is refused (`invalid`, naming the right subject); "no
 * responders" means no node is up at all.
 *
 * Payload: one MessagePack map (no record extensions), decoded and checked against the schemas
 * below. Unknown fields are refused.
 *
 * Request (`HostCommand`), a map with `type` as its discriminator:
 *
 * | field       | type                    | notes                                                        |
 * |-------------|-------------------------|--------------------------------------------------------------|
 * | `type`      | string, required        | `powerOn`, `powerOff`, `reboot`, `inspect`, `reprovision`, `pause`, `unpause`, `detach`, `attach`, `delete`, `release` |
 * | `host`      | string, required        | `"<namespace>/<name>"`: a DNS-1123 label and a DNS-1123 subdomain, e.g. `"metal3/worker-0"` |
 * | `kind`      | string, optional        | the object's kind: `BareMetalHost`, `MaasMachine`; absent: `BareMetalHost` (`MaasMachine` for `release`, which only it takes). Only that kind's store is asked; an unknown kind is `invalid` |
 * | `requestId` | string, optional        | 1–64 printable ASCII characters, no spaces; send the same id when retrying: nodes take an id once per host and command for 15 minutes (cluster/request-ledger.ts); the same id with other fields (`kind`, `mode`, `reason`) is refused `invalid`, naming them |
 * | `reason`    | string, optional        | at most 256 characters; for logs and events                  |
 * | `mode`      | string, `reboot` only   | `soft` (default) or `hard`                                   |
 *
 * What each does (BMO annotations: reference/bmo.md §1.7):
 * - `powerOn` / `powerOff`: sets `spec.online`.
 * - `reboot`: sets `reboot.metal3.io` to `{"mode":…}` (plus `"force":true` on an available host,
 *   where BMO only honours forced reboots); the host powers off, the annotation is removed and
 *   it powers on again. Suffixed `reboot.metal3.io/<id>` annotations are never used: those hold
 *   a host off until their writer removes them (phased reboots).
 * - `inspect`: sets `inspect.metal3.io: ""` on an available host (refused when inspection is disabled).
 * - `reprovision`: sets `metalfleet.io/reprovision: <requestId>` on a provisioned host, which then
 *   deprovisions and deploys `spec.image` again.
 * - `pause` / `unpause`: sets / removes `baremetalhost.metal3.io/paused`.
 * - `detach`: sets `baremetalhost.metal3.io/detached: ""`.
 * - `attach`: removes `baremetalhost.metal3.io/detached` (whatever its value): the host is
 *   registered with the backend again and adopted where it stands, without deprovisioning, as
 *   BMO does when the annotation goes. The one command besides `delete` a host being deleted
 *   takes: removing the annotation is how a delete held by `deleteAction: delay` goes on.
 * - `delete`: deletes the host (it stays, terminating, until deprovisioned and removed from the backend).
 * - `release`: MaasMachines only (below); refused (`invalid`) for a BareMetalHost.
 *
 * MaasMachines. When `host` names no BareMetalHost but a MaasMachine (Cluster API MAAS provider)
 * of that namespace/name, the command is recorded on the MaasMachine as an annotation, which its
 * actor reads (src/machines/maas-machine/intents.ts). A MaasMachine takes these, and refuses the
 * others (`reboot`, `inspect`, `reprovision`, `detach`, `attach`, `delete`) with `invalid`:
 *
 * | command    | annotation                                   | what happens                                                   |
 * |------------|----------------------------------------------|----------------------------------------------------------------|
 * | `powerOff` | sets `metalfleet.io/power-off: ""`           | the deployed MAAS machine is powered off and kept off: CAPMAAS's power-on of a Deployed machine found off is suspended for it; status: `ready` false, `MachineDeployed` False with reason `MachinePoweredOffOnRequest`. A machine not deployed yet deploys first. |
 * | `powerOn`  | removes `metalfleet.io/power-off`            | the keep-on loop powers it on again; ready once seen on        |
 * | `release`  | sets `metalfleet.io/release: <requestId>` (`""` without one) | the MAAS machine is released back to MAAS (under a release slot, as on delete) and the MaasMachine is failed as CAPMAAS fails a machine it lost: `failureReason: UpdateError`, `failureMessage: MAAS machine <id> was released by command <requestId>`, `MachineDeployed` False/`MachineTerminatedReason`; `spec.providerID` is kept, so Cluster API's MachineHealthCheck replaces the Machine. Not undone by removing the annotation. |
 * | `pause` / `unpause` | sets / removes `cluster.x-k8s.io/paused` | Cluster API's pause of this object: no MAAS call, no slot asked for, until unpaused (a paused Cluster pauses it too) |
 *
 * On a MaasMachine being deleted, or failed (failureReason set), power commands and release are
 * refused with `conflict`. The reply's `state` is the MaasMachine's `status.machineState` (MAAS's
 * `status_name`, e.g. `Deployed`), or `""` before it has a MAAS machine.
 *
 * Reply (`HostCommandReply`): `{ host, command, applied, state, message }`. `applied` is false
 * when the intent was already recorded (a repeat, e.g. a retry with the same `requestId`);
 * `state` is the host's provisioning state when the reply was made (a MaasMachine: its MAAS state, above).
 * A copy of a request whose first attempt is still being recorded is answered with a retryable
 * `unavailable` error: retry with the same `requestId` to learn its outcome.
 *
 * A commanded `release` MAAS refuses (409, 403) is followed by a read of the machine: one MAAS had
 * already taken back or removed fails with a message saying so (`MAAS machine <id> is <state> and
 * allocated to nobody: MAAS had already taken it back, …` / `… no longer exists: …`); one another
 * MAAS user holds fails for good naming that; one still the key's own is released again after a backoff.
 *
 * Signing. A node started with `--authorized-keys` takes a command only inside a signed envelope
 * (src/security/signed-request.ts): a MessagePack map `{ type: "signed", signer, signedAt, nonce,
 * signature, body }` where `body` is the MessagePack bytes of the request above, `signer` an nkey
 * user public key (`U...`), `signedAt` ms since the epoch, `nonce` 22-64 base64url characters used
 * once, and `signature` the 64-byte ed25519 signature of
 * `"metalfleet-signed-request/v1\n<subject>\n<signedAt>\n<nonce>\n"` followed by the body bytes.
 * The signer must be an `operator` in the allow-list, the time within ±2 minutes of the node's
 * clock and the nonce new to the cluster. Otherwise the command is refused, never retryable:
 * `unauthorized` (unsigned, unknown key, bad signature, stale, replayed: the message says which)
 * or `forbidden` (a `viewer` key). A node started with `--allow-unsigned-commands` instead takes
 * plain requests too. Every command, taken or refused, is recorded in the `mf-audit` stream.
 *
 * Error (`HostCommandError`): `{ code, message, retryable }` with code `notFound` (no such host),
 * `invalid` (the request does not match this schema, or asks for a spec the host cannot have),
 * `conflict` (the host's state or annotations do not allow it now; the message says what to do)
 * `unavailable` (the store could not be reached; retry when `retryable`), `unauthorized` or
 * `forbidden` (above; also `invalidMessage` for a request that does not decode). Earlier versions also
 * sent the envelope kind `notOwner` (retryable) while a shard moved; no node sends it any more,
 * and a client may keep treating it as retryable. How a reply and an error are told apart on the
 * wire is the transport envelope's business, not this file's.
 */
import { z } from 'zod';
import { HOST_COMMAND_TYPES, ProvisioningState } from '../../api/index.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function dnsLabelProblem(value: string): string | null {
  if (value.length === 0) return 'is empty';
  if (value.length > 63) return `is ${value.length} characters long (at most 63)`;
  if (!DNS1123_LABEL.test(value)) return 'must be lower-case letters, digits and "-", starting and ending with a letter or digit';
  return null;
}

function dnsSubdomainProblem(value: string): string | null {
  if (value.length === 0) return 'is empty';
  if (value.length > 253) return `is ${value.length} characters long (at most 253)`;
  for (const label of value.split('.')) {
    if (label.length === 0 || !DNS1123_LABEL.test(label)) {
      return 'must be lower-case letters, digits, "-" and ".", each "."-separated part starting and ending with a letter or digit';
    }
  }
  return null;
}

/** `"<namespace>/<name>"`: the namespace a DNS-1123 label, the name a DNS-1123 subdomain (as Kubernetes). */
export const HostKey = z.string().superRefine((value, ctx) => {
  const parts = value.split('/');
  if (parts.length !== 2) {
    ctx.addIssue({ code: 'custom', message: `must be "<namespace>/<name>", e.g. "metal3/worker-0"; got ${JSON.stringify(value.slice(0, 80))}` });
    return;
  }
  const [namespace = '', name = ''] = parts;
  const ns = dnsLabelProblem(namespace);
  if (ns) ctx.addIssue({ code: 'custom', message: `namespace ${JSON.stringify(namespace.slice(0, 80))} ${ns}` });
  const n = dnsSubdomainProblem(name);
  if (n) ctx.addIssue({ code: 'custom', message: `name ${JSON.stringify(name.slice(0, 80))} ${n}` });
});
export type HostKey = z.infer<typeof HostKey>;

export const REQUEST_ID_MAX = 64;
export const REASON_MAX = 256;

// Printable ASCII without spaces: the id ends up in an annotation value, events and logs.
export const RequestId = z
  .string()
  .min(1, 'must not be empty; leave requestId out instead')
  .max(REQUEST_ID_MAX, `must be at most ${REQUEST_ID_MAX} characters`)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

// A kind's name as its manifests spell it; which kinds exist is the node's kinds registry's to say.
export const CommandKind = z.string().regex(/^[A-Z][A-Za-z0-9]{0,62}$/, 'must be a kind as manifests spell it, e.g. "BareMetalHost" or "MaasMachine"');

const common = {
  host: HostKey,
  kind: CommandKind.optional(),
  requestId: RequestId.optional(),
  reason: z.string().max(REASON_MAX, `must be at most ${REASON_MAX} characters`).optional(),
};

export const PowerOnCommand = z.strictObject({ type: z.literal('powerOn'), ...common });
export const PowerOffCommand = z.strictObject({ type: z.literal('powerOff'), ...common });
export const RebootMode = z.enum(['soft', 'hard']);
export const RebootCommand = z.strictObject({ type: z.literal('reboot'), ...common, mode: RebootMode.default('soft') });
export const InspectCommand = z.strictObject({ type: z.literal('inspect'), ...common });
export const ReprovisionCommand = z.strictObject({ type: z.literal('reprovision'), ...common });
export const ServiceCommand = z.strictObject({ type: z.literal('service'), ...common });
export const PauseCommand = z.strictObject({ type: z.literal('pause'), ...common });
export const UnpauseCommand = z.strictObject({ type: z.literal('unpause'), ...common });
export const DetachCommand = z.strictObject({ type: z.literal('detach'), ...common });
export const AttachCommand = z.strictObject({ type: z.literal('attach'), ...common });
export const DeleteCommand = z.strictObject({ type: z.literal('delete'), ...common });
export const ReleaseCommand = z.strictObject({ type: z.literal('release'), ...common });

export { HOST_COMMAND_TYPES };
export const HostCommandType = z.enum(HOST_COMMAND_TYPES);
export type HostCommandType = z.infer<typeof HostCommandType>;

export const HostCommand = z.discriminatedUnion('type', [
  PowerOnCommand, PowerOffCommand, RebootCommand, InspectCommand, ReprovisionCommand, ServiceCommand,
  PauseCommand, UnpauseCommand, DetachCommand, AttachCommand, DeleteCommand, ReleaseCommand,
], { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${HOST_COMMAND_TYPES.join(', ')}` : undefined) });
/** A validated command (defaults filled in: a reboot always has its mode). */
export type HostCommand = z.infer<typeof HostCommand>;
/** What a sender may put on the wire (mode may be left out). */
export type HostCommandInput = z.input<typeof HostCommand>;
export type RebootMode = z.infer<typeof RebootMode>;

/** MAAS's node status names (`status_name`, reference/capmaas.md §3.4): a MaasMachine's state in a reply. */
export const MAAS_STATE_NAMES = [
  'New', 'Commissioning', 'Failed commissioning', 'Missing', 'Ready', 'Reserved', 'Deployed', 'Retired', 'Broken',
  'Deploying', 'Allocated', 'Failed deployment', 'Releasing', 'Releasing failed', 'Disk erasing', 'Failed disk erasing',
  'Rescue mode', 'Entering rescue mode', 'Failed to enter rescue mode', 'Exiting rescue mode', 'Failed to exit rescue mode',
  'Testing', 'Failed testing',
] as const;
export const MaasStateName = z.enum(MAAS_STATE_NAMES);

export const HostCommandReply = z.strictObject({
  host: HostKey,
  command: HostCommandType,
  /** False when the intent was already recorded: a repeat changed nothing. */
  applied: z.boolean(),
  /** The host's provisioning state when the reply was made; for a MaasMachine, its MAAS state name. */
  state: z.union([ProvisioningState, MaasStateName]),
  message: z.string(),
});
export type HostCommandReply = z.infer<typeof HostCommandReply>;

export const HOST_COMMAND_ERROR_CODES = ['notFound', 'invalid', 'conflict', 'unavailable', 'unauthorized', 'forbidden'] as const;
export const HostCommandErrorCode = z.enum(HOST_COMMAND_ERROR_CODES);
export type HostCommandErrorCode = z.infer<typeof HostCommandErrorCode>;

export const HostCommandError = z.strictObject({
  code: HostCommandErrorCode,
  message: z.string(),
  /** True when the same request may succeed later unchanged (the store was unreachable). */
  retryable: z.boolean(),
});
export type HostCommandError = z.infer<typeof HostCommandError>;
