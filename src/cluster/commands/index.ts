// Host commands (what a command asks of a host, applying it through the host store) and the store
// requests apply and delete send through a node; both servers share the audit entry and signed call.
export { intentFor, PAUSED_BY_COMMAND } from './command-intent.ts';
export type { CommandIntent } from './command-intent.ts';
export { handleCommand } from './handle-command.ts';
export type { CommandOutcome } from './handle-command.ts';
export { maasIntentFor, MAAS_MACHINE_COMMANDS } from './maas-command-intent.ts';
export type { MaasCommandIntent } from './maas-command-intent.ts';
export { startStoreServer, STORE_QUEUE } from './store-server.ts';
export type { ObjectDeleteKind, StoreServer, StoreServerOptions } from './store-server.ts';
export { applyThroughNode, deleteThroughNode, storeRequestLimit, storeRequestSize } from './store-client.ts';
export type { StoreCallOptions } from './store-client.ts';
export { STORE_DELETE_KINDS, StoreApplyReply, StoreApplyRequest, StoreDeleteKind, StoreDeleteReply, StoreDeleteRequest } from './store-messages.ts';
export type { StoreApplyInput, StoreDeleteInput } from './store-messages.ts';
