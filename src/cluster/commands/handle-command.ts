import type { BareMetalHost, ProvisioningState } from '../../api/index.ts';
import type { HostCommand, HostCommandError, HostCommandReply } from '../../bus/messages/index.ts';
import { StoreError, type HostStore } from '../../ports/index.ts';
import { intentFor } from './command-intent.ts';

/**
 * What a command came to: the reply for the sender, or an error it can act on. `error` is exactly
 * the wire value (HostCommandError); `cause` is the underlying failure, for logs only.
 */
export type CommandOutcome =
  | { readonly ok: true; readonly reply: HostCommandReply }
  | { readonly ok: false; readonly error: HostCommandError; readonly cause?: unknown };

/**
 * Applies one validated command through the store, so it is recorded exactly as a spec or
 * annotation change is (the host's actor reacts to the store's watch event). Never throws.
 * Safe to repeat: a command whose intent is already recorded replies with applied: false.
 */
export async function handleCommand(store: HostStore, cmd: HostCommand): Promise<CommandOutcome> {
  const key = cmd.host;
  let host: BareMetalHost | undefined;
  try {
    host = await store.get(key);
  } catch (err) {
    return storeFailure(store, cmd, err, 'reading the host');
  }
  if (host === undefined) return notFound(cmd);

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
    if (host === undefined) return notFound(cmd);
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

function stateOf(host: BareMetalHost): ProvisioningState {
  return host.status?.provisioning.state ?? '';
}

function failure(code: HostCommandError['code'], message: string, retryable: boolean, cause?: unknown): CommandOutcome {
  return { ok: false, error: { code, message, retryable }, ...(cause === undefined ? {} : { cause }) };
}

function notFound(cmd: HostCommand, cause?: unknown): CommandOutcome {
  return failure('notFound', `BareMetalHost ${cmd.host} not found (never applied, or deleted); check the namespace and name`, false, cause);
}

// StoreError says whether to retry. A refused write may mean the host went away meanwhile: then
// the sender is told so, not given the store's wording.
async function storeFailure(store: HostStore, cmd: HostCommand, err: unknown, doing: string): Promise<CommandOutcome> {
  const what = `${cmd.type} for ${cmd.host}`;
  if (err instanceof StoreError) {
    if (err.retryable) return failure('unavailable', `${what}: the host store failed while ${doing} (${err.message}); send the same command again`, true, err);
    const gone = await store.get(cmd.host).then((h) => h === undefined, () => false);
    if (gone) return notFound(cmd, err);
    return failure('conflict', `${what} was refused by the host store while ${doing}: ${err.message}`, false, err);
  }
  const message = err instanceof Error ? err.message : String(err);
  return failure('unavailable', `${what} failed unexpectedly while ${doing} (${message}); the node's log has details`, false, err);
}
