export { createTransport, RequestWithheld, TransportError } from './transport.ts';
export { leaveChecked, whileHeld } from './leave-check.ts';
export type { RawFailure, RawRequest, RawResponse, Transport, TransportTls } from './transport.ts';
export { createCallStats, WITHHELD } from './call-stats.ts';
export type { CallCounter, CallStats } from './call-stats.ts';
export { createRedactor, MASK } from './redactor.ts';
