// ComputerSystem.Reset as a table: what each ResetType does from each power state. A restart
// from Off does nothing, as on most BMCs (Ironic powers on instead of rebooting a host that is off).
export const RESET_TYPES = ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart', 'Nmi', 'ForceOn', 'PushPowerButton', 'PowerCycle'] as const;
export type ResetType = (typeof RESET_TYPES)[number];
export type PowerEffect = 'powerOn' | 'powerOff' | 'restart' | 'nothing';

const FROM_ON: Record<ResetType, PowerEffect> = {
  On: 'nothing', ForceOn: 'nothing', ForceOff: 'powerOff', GracefulShutdown: 'powerOff', PushPowerButton: 'powerOff',
  GracefulRestart: 'restart', ForceRestart: 'restart', PowerCycle: 'restart', Nmi: 'nothing',
};
const FROM_OFF: Record<ResetType, PowerEffect> = {
  On: 'powerOn', ForceOn: 'powerOn', PushPowerButton: 'powerOn', PowerCycle: 'powerOn',
  ForceOff: 'nothing', GracefulShutdown: 'nothing', GracefulRestart: 'nothing', ForceRestart: 'nothing', Nmi: 'nothing',
};

export function isResetType(value: unknown): value is ResetType {
  return typeof value === 'string' && (RESET_TYPES as readonly string[]).includes(value);
}

export function resetEffect(type: ResetType, on: boolean): PowerEffect {
  return (on ? FROM_ON : FROM_OFF)[type];
}
