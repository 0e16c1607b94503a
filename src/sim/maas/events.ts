// The event log MAAS keeps per machine (events/?op=query reads it).
export class EventLog {}
