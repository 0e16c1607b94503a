import type { SimClock } from './clock.ts';

// The event log MAAS keeps per machine (events/?op=query reads it).
export class EventLog {
  constructor(private readonly clock: SimClock) {}

  now(): number {
    return this.clock.now();
  }
}
