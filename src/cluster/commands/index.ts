// Host commands (what a command asks of a host, applying it through the host store) and the store
// requests apply and delete send through a node; both servers share the audit entry and signed call.
// What each kind's commands write is the kind's own (machines/<kind>/command-intent.ts); re-exported
// here for the callers that decide a command without a store.
export { intentFor, PAUSED_BY_COMMAND } from '../../machines/bmh/command-intent.ts';
export type { BmhCommandIntent as CommandIntent } from '../../machines/bmh/command-intent.ts';
export { commandState, handleCommand } from './handle-command.ts';
export type { CommandOutcome } from './handle-command.ts';
export { maasIntentFor, MAAS_MACHINE_COMMANDS } from '../../machines/maas-machine/command-intent.ts';
export type { MaasCommandIntent } from '../../machines/maas-machine/command-intent.ts';
export { startStoreServer, STORE_QUEUE } from './store-server.ts';
export type { ObjectDeleteKind, StoreServer, StoreServerOptions } from './store-server.ts';
export { applyThroughNode, deleteThroughNode, storeRequestLimit, storeRequestSize } from './store-client.ts';
export type { StoreCallOptions } from './store-client.ts';
export { STORE_DELETE_KINDS, StoreApplyReply, StoreApplyRequest, StoreDeleteKind, StoreDeleteReply, StoreDeleteRequest } from './store-messages.ts';
export type { StoreApplyInput, StoreDeleteInput } from './store-messages.ts';
