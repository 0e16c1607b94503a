export { AGED_MS, BackendCalls } from './backend-calls.ts';
export type { BackendCallFigures } from './backend-calls.ts';
export { callLimitOf, checkCallLimits, DEFAULT_CALL_LIMITS } from './call-limits.ts';
export type { CallLimits } from './call-limits.ts';
