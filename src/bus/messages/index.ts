// Message schemas of the bus: the single source of truth for what travels on each subject.
export {
  DeleteCommand, DetachCommand, HOST_COMMAND_ERROR_CODES, HOST_COMMAND_TYPES, HostCommand, HostCommandError,
  HostCommandErrorCode, HostCommandReply, HostCommandType, HostKey, InspectCommand, PauseCommand, PowerOffCommand,
  PowerOnCommand, REASON_MAX, REQUEST_ID_MAX, RebootCommand, RebootMode, ReprovisionCommand, RequestId, UnpauseCommand,
  MAAS_STATE_NAMES, MaasStateName, ReleaseCommand, CommandKind,
} from './command.ts';
export type { HostCommandInput } from './command.ts';
export { DISCOVERY_SERVICE, DISCOVERY_VERBS, EndpointInfo, EndpointStats, InfoResponse, PingResponse, StatsResponse } from './discovery.ts';
export type { DiscoveryVerb } from './discovery.ts';
