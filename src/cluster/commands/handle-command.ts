import { BMH_KIND, errorMessage } from '../../api/index.ts';
import { HostCommandReply, type HostCommand, type HostCommandError } from '../../bus/messages/index.ts';
import type { CommandIntent, RegisteredKind } from '../../machines/kind.ts';
import { KINDS, kindNamed } from '../../machines/kinds.ts';
import { StoreError, type ResourceKind, type ResourceStore } from '../../ports/index.ts';
import { storeTarget, type CommandTarget } from './command-target.ts';

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
 * and a MaasMachine of one name are each reachable, and neither shadows the other. What the
 * command writes is the kind's commandIntent (its kind.ts), through the one store; a node that
 * runs no MAAS kind holds no MaasMachine, so one is not found there.
 */
export async function handleCommand(store: ResourceStore, cmd: HostCommand): Promise<CommandOutcome> {
  const named = commandKind(cmd);
  if (!named.ok) return failure('invalid', named.message, false);
  const kind = named.kind;
  if (!kind.commandIntent || kind.commands.length === 0) {
    return failure('invalid', `${kind.kind} ${cmd.host} takes no commands (${kind.noCommandsReason ?? 'none is declared for its kind'})`, false);
  }
  return applyIntent(targetOf(store, kind.kind as ResourceKind, kind.commandIntent.noun), kind.kind, kind.commandIntent, cmd);
}

// One target per store and kind, built on its first command: the command path is hot (issue 29's
// 8,000 commands/s), and a target per command was a dozen closures each time.
const targets = new WeakMap<ResourceStore, Map<string, CommandTarget>>();
function targetOf(store: ResourceStore, kind: ResourceKind, noun: string | undefined): CommandTarget {
  let byKind = targets.get(store);
  if (!byKind) targets.set(store, byKind = new Map());
  let target = byKind.get(kind);
  if (!target) byKind.set(kind, target = storeTarget(store, kind, noun));
  return target;
}

/**
 * The kind a command is for: the one it names, checked against the kinds registry; without one, a
 * BareMetalHost (all a command could be for before commands named kinds), except a command no
 * BareMetalHost takes and exactly one kind does (release: a MaasMachine). Decided by the command
 * alone, never by which store holds the name.
 */
export function commandKind(cmd: HostCommand): { ok: true; kind: RegisteredKind } | { ok: false; message: string } {
  if (cmd.kind !== undefined) {
    const named = kindNamed(cmd.kind);
    return named ? { ok: true, kind: named } : { ok: false, message: `unknown kind ${JSON.stringify(cmd.kind)} for ${cmd.host}: the kinds are ${KINDS.map((k) => k.kind).join(', ')}` };
  }
  const host = kindNamed(BMH_KIND);
  if (!host) return { ok: false, message: `no kind named for ${cmd.host}, and no ${BMH_KIND} kind to default to: name the kind` };
  if (host.commands.includes(cmd.type)) return { ok: true, kind: host };
  const takers = KINDS.filter((k) => k.commands.includes(cmd.type));
  return { ok: true, kind: takers.length === 1 && takers[0] ? takers[0] : host };
}

// The command as its kind decides it, on the object as stored, then written through the target.
async function applyIntent(target: CommandTarget, kind: string, intent: CommandIntent, cmd: HostCommand): Promise<CommandOutcome> {
  const key = cmd.host;
  const reading = `reading the ${target.noun}`;
  let stored: unknown;
  try {
    stored = await target.get(key);
  } catch (err) {
    return storeFailure(target, kind, cmd, err, reading);
  }
  if (stored === undefined) return notFound(cmd, kind);

  let decision = intent.decide(stored, cmd);
  // Any node takes a command, and its cache may lag the owner's latest write by a watch
  // delivery: a "no" or an "already done" is decided again on the stored object before it is told.
  // (A write needs no such read: the store's compare-and-set applies it to the stored object.)
  if ((!decision.ok || decision.alreadyApplied) && target.getFresh) {
    try {
      stored = await target.getFresh(key);
    } catch (err) {
      return storeFailure(target, kind, cmd, err, reading);
    }
    if (stored === undefined) return notFound(cmd, kind);
    decision = intent.decide(stored, cmd);
  }
  if (!decision.ok) return failure(decision.code, decision.message, false);
  const reply = (applied: boolean, object: unknown, message = decision.message): CommandOutcome => ({
    ok: true,
    reply: { host: key, command: cmd.type, applied, state: replyState(intent.state(object)), message },
  });
  if (decision.alreadyApplied) return reply(false, stored);

  if (decision.write === 'delete') {
    const deleting = `deleting the ${target.noun}`;
    let result: 'terminating' | 'deleted';
    try {
      result = await target.requestDelete(key);
    } catch (err) {
      return storeFailure(target, kind, cmd, err, deleting);
    }
    if (result === 'deleted') return reply(true, stored, `${key} deleted: it had no finalizers, so nothing was left to clean up`);
    // The state the reply reports is the newest we can read; the deletion is recorded either way.
    const now = await target.get(key).catch(() => stored);
    return reply(true, now ?? stored);
  }

  try {
    const { changed, object } = await target.write(key, decision.write);
    return reply(changed, object ?? stored);
  } catch (err) {
    return storeFailure(target, kind, cmd, err, 'recording the intent');
  }
}

/**
 * The state of the object a command names, as a reply carries it: for the answer to a copy of a
 * request already taken, which the request ledger answers without the object. '' when it cannot
 * be read (no such kind or object, a store that failed): the answer is told either way.
 */
export async function commandState(store: ResourceStore, cmd: HostCommand): Promise<HostCommandReply['state']> {
  const named = commandKind(cmd);
  if (!named.ok || !named.kind.commandIntent) return '';
  const intent = named.kind.commandIntent;
  const stored = await targetOf(store, named.kind.kind as ResourceKind, intent.noun).get(cmd.host).catch(() => undefined);
  return stored === undefined ? '' : replyState(intent.state(stored));
}

// The state a reply may carry (a provisioning state, a MAAS state name); '' for any other.
// Looked up, not parsed: it is asked once per command, on the command path's hot loop.
const REPLY_STATES: ReadonlySet<string> = new Set(HostCommandReply.shape.state.options.flatMap((o) => o.options));
function replyState(state: string): HostCommandReply['state'] {
  return REPLY_STATES.has(state) ? state as HostCommandReply['state'] : '';
}

function failure(code: HostCommandError['code'], message: string, retryable: boolean, cause?: unknown): CommandOutcome {
  return { ok: false, error: { code, message, retryable }, ...(cause === undefined ? {} : { cause }) };
}

function notFound(cmd: HostCommand, kind: string, cause?: unknown): CommandOutcome {
  // Only the command's kind was looked for: say how to name another.
  const other = cmd.kind === undefined ? `; the command named no kind, so it was for a ${kind}: name the kind to reach another (metalfleet host ACTION --kind KIND NAMESPACE/NAME)` : '';
  return failure('notFound', `${kind} ${cmd.host} not found (never applied, or deleted); check the namespace and name${other}`, false, cause);
}

// StoreError says whether to retry. A refused write may mean the object went away meanwhile: then
// the sender is told so, not given the store's wording.
async function storeFailure(target: CommandTarget, kind: string, cmd: HostCommand, err: unknown, doing: string): Promise<CommandOutcome> {
  const what = target.what(cmd.type, cmd.host);
  if (err instanceof StoreError) {
    if (err.retryable) return failure('unavailable', `${what}: the ${target.store} failed while ${doing} (${err.message}); send the same command again`, true, err);
    const gone = await target.get(cmd.host).then((o) => o === undefined, () => false);
    if (gone) return notFound(cmd, kind, err);
    return failure('conflict', `${what} was refused by the ${target.store} while ${doing}: ${err.message}`, false, err);
  }
  const message = errorMessage(err);
  return failure('unavailable', `${what} failed unexpectedly while ${doing} (${message}); the node's log has details`, false, err);
}
