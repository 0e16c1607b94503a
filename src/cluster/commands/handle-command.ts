import { BMH_KIND, MaasMachine, type BareMetalHost, type ProvisioningState, errorMessage } from '../../api/index.ts';
import { KINDS, kindNamed } from '../../machines/kinds.ts';
import { MaasStateName, type HostCommand, type HostCommandError, type HostCommandReply } from '../../bus/messages/index.ts';
import { StoreError, type HostStore, type ObjectStore } from '../../ports/index.ts';
import { intentFor } from './command-intent.ts';
import { maasIntentFor } from './maas-command-intent.ts';

/**
 * What a command came to: the reply for the sender, or an error it can act on. `error` is exactly
 * the wire value (HostCommandError); `cause` is the underlying failure, for logs only.
 */
export type CommandOutcome =
  | { readonly ok: true; readonly reply: HostCommandReply }
  | { readonly ok: false; readonly error: HostCommandError; readonly cause?: unknown };

/**
 * Applies one validated command through the store of its kind, so it is recorded exactly as a
 * spec or annotation change is (the object's actor reacts to the store's watch event). Never
 * throws. Safe to repeat: a command whose intent is already recorded replies with applied: false.
 * The command's kind (commandKind) picks the store, and only that store is asked: a BareMetalHost
 * and a MaasMachine of one name are each reachable, and neither shadows the other. A MaasMachine's
 * command is an annotation on it (maas-command-intent.ts), through `objects` (a node running MAAS).
 */
export async function handleCommand(store: HostStore, cmd: HostCommand, objects?: ObjectStore): Promise<CommandOutcome> {
  const kind = commandKind(cmd);
  if (!kind.ok) return failure('invalid', kind.message, false);
  switch (kind.kind) {
    case 'BareMetalHost':
      return hostCommand(store, cmd);
    case 'MaasMachine':
      // A node without the object store runs no MAAS kind: there is no MaasMachine to find.
      return objects ? maasCommand(objects, cmd) : notFound(cmd, 'MaasMachine');
    default:
      return failure('invalid', `${kind.kind} ${cmd.host} takes no commands (${kind.kind === 'MaasCluster' ? 'it follows its Cluster: pause that' : 'none is declared for its kind'})`, false);
  }
}

/**
 * The kind a command is for: the one it names, checked against the kinds registry; without one, a
 * BareMetalHost (all a command could be for before commands named kinds), except a command no
 * BareMetalHost takes and exactly one kind does (release: a MaasMachine). Decided by the command
 * alone, never by which store holds the name.
 */
export function commandKind(cmd: HostCommand): { ok: true; kind: string } | { ok: false; message: string } {
  if (cmd.kind !== undefined) {
    const named = kindNamed(cmd.kind);
    return named ? { ok: true, kind: named.kind } : { ok: false, message: `unknown kind ${JSON.stringify(cmd.kind)} for ${cmd.host}: the kinds are ${KINDS.map((k) => k.kind).join(', ')}` };
  }
  const host = kindNamed(BMH_KIND);
  if (host?.commands.includes(cmd.type)) return { ok: true, kind: BMH_KIND };
  const takers = KINDS.filter((k) => k.commands.includes(cmd.type));
  return { ok: true, kind: takers.length === 1 && takers[0] ? takers[0].kind : BMH_KIND };
}

// A BareMetalHost's command: its intent through the host store (command-intent.ts).
async function hostCommand(store: HostStore, cmd: HostCommand): Promise<CommandOutcome> {
  const key = cmd.host;
  let host: BareMetalHost | undefined;
  try {
    host = await store.get(key);
  } catch (err) {
    return storeFailure(store, cmd, err, 'reading the host');
  }
  if (host === undefined) return notFound(cmd, 'BareMetalHost');

  let decision = intentFor(host, cmd);
  // Any node takes a command, and its cache may lag the owner's latest write by a watch
  // delivery: a "no" or an "already done" is decided again on the stored host before it is told.
  // (A write needs no such read: the store's compare-and-set applies it to the stored host.)
  if ((!decision.ok || decision.alreadyApplied) && store.getFresh) {
    try {
      host = await store.getFresh(key);
    } catch (err) {
      return storeFailure(store, cmd, err, 'reading the host');
    }
    if (host === undefined) return notFound(cmd, 'BareMetalHost');
    decision = intentFor(host, cmd);
  }
  if (!decision.ok) return failure(decision.code, decision.message, false);
  const reply = (applied: boolean, state: ProvisioningState, message = decision.message): CommandOutcome => ({
    ok: true,
    reply: { host: key, command: cmd.type, applied, state, message },
  });
  if (decision.alreadyApplied) return reply(false, stateOf(host));

  if (decision.intent === 'delete') {
    let result: 'terminating' | 'deleted';
    try {
      result = await store.requestDelete(key);
    } catch (err) {
      return storeFailure(store, cmd, err, 'deleting the host');
    }
    if (result === 'deleted') {
      return reply(true, stateOf(host), `${key} deleted: it had no finalizers, so nothing was left to clean up`);
    }
    // The state the reply reports is the newest we can read; the deletion is recorded either way.
    const now = await store.get(key).catch(() => host);
    return reply(true, stateOf(now ?? host));
  }

  try {
    const updated = await store.applyIntent(key, decision.intent);
    return reply(true, stateOf(updated));
  } catch (err) {
    return storeFailure(store, cmd, err, 'recording the intent');
  }
}

// A MaasMachine's command: recorded as an annotation through the object store. A repeat (the
// annotation already there, or put there by another node in between) is applied: false.
async function maasCommand(objects: ObjectStore, cmd: HostCommand): Promise<CommandOutcome> {
  const key = cmd.host;
  let stored;
  try {
    stored = await objects.get('MaasMachine', key);
  } catch (err) {
    return objectFailure(objects, cmd, err, 'reading the MaasMachine');
  }
  if (stored === undefined) return notFound(cmd, 'MaasMachine');
  const parsed = MaasMachine.safeParse(stored);
  if (!parsed.success) {
    return failure('conflict', `MaasMachine ${key} does not parse (${parsed.error.issues[0]?.message ?? 'invalid'} at ${parsed.error.issues[0]?.path.join('.') ?? ''}), so its machine cannot act on ${cmd.type}; apply a valid MaasMachine first`, false);
  }
  const decision = maasIntentFor(parsed.data, cmd);
  if (!decision.ok) return failure(decision.code, decision.message, false);
  const reply = (applied: boolean, mm: MaasMachine): CommandOutcome => ({
    ok: true,
    reply: { host: key, command: cmd.type, applied, state: maasStateOf(mm), message: decision.message },
  });
  if (decision.alreadyApplied) return reply(false, parsed.data);
  let changed: boolean;
  try {
    changed = await objects.patchAnnotations('MaasMachine', key, decision.annotations);
  } catch (err) {
    return objectFailure(objects, cmd, err, 'recording the intent');
  }
  const now = await objects.get('MaasMachine', key).then((o) => (o ? MaasMachine.safeParse(o).data : undefined), () => undefined);
  return reply(changed, now ?? parsed.data);
}

/** MAAS's state name of the machine, for the reply; "" before it has one (or one we do not know). */
function maasStateOf(mm: MaasMachine): HostCommandReply['state'] {
  const state = MaasStateName.safeParse(mm.status?.machineState);
  return state.success ? state.data : '';
}

async function objectFailure(objects: ObjectStore, cmd: HostCommand, err: unknown, doing: string): Promise<CommandOutcome> {
  const what = `${cmd.type} for MaasMachine ${cmd.host}`;
  if (err instanceof StoreError) {
    if (err.retryable) return failure('unavailable', `${what}: the object store failed while ${doing} (${err.message}); send the same command again`, true, err);
    const gone = await objects.get('MaasMachine', cmd.host).then((o) => o === undefined, () => false);
    if (gone) return notFound(cmd, 'MaasMachine', err);
    return failure('conflict', `${what} was refused by the object store while ${doing}: ${err.message}`, false, err);
  }
  const message = errorMessage(err);
  return failure('unavailable', `${what} failed unexpectedly while ${doing} (${message}); the node's log has details`, false, err);
}

function stateOf(host: BareMetalHost): ProvisioningState {
  return host.status?.provisioning.state ?? '';
}

function failure(code: HostCommandError['code'], message: string, retryable: boolean, cause?: unknown): CommandOutcome {
  return { ok: false, error: { code, message, retryable }, ...(cause === undefined ? {} : { cause }) };
}

function notFound(cmd: HostCommand, kind: string, cause?: unknown): CommandOutcome {
  // Only the command's kind was looked for: say how to name another.
  const other = cmd.kind === undefined ? `; the command named no kind, so it was for a ${kind}: name the kind to reach another (metalfleet host ACTION --kind KIND NAMESPACE/NAME)` : '';
  return failure('notFound', `${kind} ${cmd.host} not found (never applied, or deleted); check the namespace and name${other}`, false, cause);
}

// StoreError says whether to retry. A refused write may mean the host went away meanwhile: then
// the sender is told so, not given the store's wording.
async function storeFailure(store: HostStore, cmd: HostCommand, err: unknown, doing: string): Promise<CommandOutcome> {
  const what = `${cmd.type} for ${cmd.host}`;
  if (err instanceof StoreError) {
    if (err.retryable) return failure('unavailable', `${what}: the host store failed while ${doing} (${err.message}); send the same command again`, true, err);
    const gone = await store.get(cmd.host).then((h) => h === undefined, () => false);
    if (gone) return notFound(cmd, 'BareMetalHost', err);
    return failure('conflict', `${what} was refused by the host store while ${doing}: ${err.message}`, false, err);
  }
  const message = errorMessage(err);
  return failure('unavailable', `${what} failed unexpectedly while ${doing} (${message}); the node's log has details`, false, err);
}
