// Introspection for the CLI: tables of hosts, actors, shards, capacity and nodes gathered from
// every node, one host in depth, and the `top` dashboard. Commands live in src/cli/commands.
export { formatBytes, formatDuration, oneLine, outputWidth, renderFields, renderTable, truncate } from './format.ts';
export type { Column, TableOptions } from './format.ts';
export {
  addViewFlags, collect, connectCli, endQuietlyWhenReaderCloses, formatFrom, noAnswer, nodesFrom, oneLineUsageErrors, oneOf, output, partialWarnings, print, renderData, runView, timeoutFrom, usageErrorsExitTwo,
} from './session.ts';
export type { CommandOutput, CommonFlags, Connected, GatheredLike, OutputFormat, ViewOptions } from './session.ts';
export {
  actorsView, actorTree, capacityView, hostsView, HOST_STATES, inspectView, nodesView, parseHostKey, renderInspect, shardsView,
} from './views.ts';
export type { ActorsQuery, HostsQuery, InspectQuery, NodeLine } from './views.ts';
export { clustersView } from './clusters-view.ts';
export { bar, countStates, handleKeys, INITIAL_KEYS, renderFrame, SORT_KEYS, sortActors, summarize } from './top.ts';
export type { FrameOptions, KeyState, SortKey, TopData, TopError } from './top.ts';
export { runTop, sampleTop } from './top-loop.ts';
export type { SampleOptions, TerminalIn, TerminalOut, TopLoopOptions } from './top-loop.ts';
