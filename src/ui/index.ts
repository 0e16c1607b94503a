// The live fleet dashboard: an HTTP handler over the introspection API and the host command path.
export { createUiHandler } from './http-handler.ts';
export type { UiHandler, UiHandlerOptions } from './http-handler.ts';
export { startUiServer } from './server.ts';
export type { UiServer } from './server.ts';
export { commandGate, newToken, TOKEN_HEADER, UI_ACTIONS } from './command-gate.ts';
export type { CommandGate } from './command-gate.ts';
export { FleetPicture } from './picture.ts';
export { UiAssetsMissing } from './assets.ts';
