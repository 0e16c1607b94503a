import type { SimClock } from '../clock.ts';

// The event log MAAS keeps per machine (events/?op=query reads it). Types, descriptions and levels
// are those of EVENT_DETAILS in src/maascommon/events.py.

export const LOG_LEVELS = { AUDIT: 0, DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40, CRITICAL: 50 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;

/** Event types the simulator records: the type's description (what `type` shows) and its level. */
export const EVENT_TYPES = {
  // A machine entering a status (NODE_STATUS → event type); INFO.
  New: ['New', 'INFO'],
  Commissioning: ['Commissioning', 'INFO'],
  FailedCommissioning: ['Failed commissioning', 'INFO'],
  Ready: ['Ready', 'INFO'],
  Deploying: ['Deploying', 'INFO'],
  Deployed: ['Deployed', 'INFO'],
  Releasing: ['Releasing', 'INFO'],
  Released: ['Released', 'INFO'],
  DisksErased: ['Disks erased', 'INFO'],
  AbortedCommissioning: ['Aborted commissioning', 'INFO'],
  AbortedDeployment: ['Aborted deployment', 'INFO'],
  AbortedDiskErasing: ['Aborted disk erasing', 'INFO'],
  // What a deployment goes through, as the machine reports it.
  PerformingPxeBoot: ['Performing PXE boot', 'INFO'],
  LoadingEphemeral: ['Loading ephemeral', 'INFO'],
  GatheringInfo: ['Gathering information', 'INFO'],
  ConfiguringStorage: ['Configuring storage', 'INFO'],
  InstallingOs: ['Installing OS', 'INFO'],
  ConfiguringOs: ['Configuring OS', 'INFO'],
  Rebooting: ['Rebooting', 'INFO'],
  ImageDeployed: ['Image Deployed', 'INFO'],
  InstallationFailed: ['Node installation failure', 'ERROR'],
  // Status changes and power, DEBUG.
  ChangedStatus: ['Node changed status', 'DEBUG'],
  PoweredOn: ['Node powered on', 'DEBUG'],
  PoweredOff: ['Node powered off', 'DEBUG'],
  // User requests, DEBUG: the description is "(user)" or "(user) - comment".
  RequestAcquire: ['User acquiring node', 'DEBUG'],
  RequestStartDeployment: ['User starting deployment', 'DEBUG'],
  RequestRelease: ['User releasing node', 'DEBUG'],
  RequestStart: ['User powering up node', 'DEBUG'],
  RequestStop: ['User powering down node', 'DEBUG'],
  RequestStartCommissioning: ['User starting node commissioning', 'DEBUG'],
  RequestAbortCommissioning: ['User aborting node commissioning', 'DEBUG'],
  RequestAbortDeployment: ['User aborting deployment', 'DEBUG'],
  RequestAbortEraseDisk: ['User aborting disk erase', 'DEBUG'],
  RequestEraseDisk: ['User erasing disk', 'DEBUG'],
  RequestMarkBroken: ['User marking node broken', 'DEBUG'],
  RequestMarkFixed: ['User marking node fixed', 'DEBUG'],
  RequestLock: ['User locking node', 'DEBUG'],
  RequestUnlock: ['User unlocking node', 'DEBUG'],
  // A fault the simulator was told to show.
  MarkBrokenSystem: ['Marking node broken', 'ERROR'],
} as const satisfies Record<string, readonly [string, LogLevelName]>;

export type EventTypeName = keyof typeof EVENT_TYPES;

export interface SimEvent {
  readonly id: number;
  readonly systemId: string;
  readonly hostname: string;
  /** Who caused it; MAAS shows 'unknown' for the system's own events. */
  readonly username: string;
  readonly type: string;
  readonly level: LogLevelName;
  readonly description: string;
  /** ms since the epoch, on the simulator's clock. */
  readonly created: number;
}

export interface EventSubject {
  readonly systemId: string;
  readonly hostname: string;
}

// Bounded so a long-running simulator does not grow without end; MAAS prunes old events too.
const MAX_EVENTS = 50_000;

export class EventLog {
  private readonly events: SimEvent[] = [];
  private nextId = 1;

  constructor(private readonly clock: SimClock) {}

  now(): number {
    return this.clock.now();
  }

  record(subject: EventSubject, type: EventTypeName, description = '', username = 'unknown'): SimEvent {
    const [typeDescription, level] = EVENT_TYPES[type];
    const event: SimEvent = {
      id: this.nextId++,
      systemId: subject.systemId,
      hostname: subject.hostname,
      username,
      type: typeDescription,
      level,
      description,
      created: this.clock.now(),
    };
    this.events.push(event);
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
    return event;
  }

  /** A user's request: described "(user)" or "(user) - comment", as Node._register_request_event. */
  request(subject: EventSubject, type: EventTypeName, user: string, comment?: string): SimEvent {
    const description = comment ? `(${user}) - ${comment}` : `(${user})`;
    return this.record(subject, type, description, user);
  }

  /** Oldest first. */
  all(): readonly SimEvent[] {
    return this.events;
  }
}
