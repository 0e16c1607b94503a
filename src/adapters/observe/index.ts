export { startHealthServer } from './health-server.ts';
export type { HealthServer, NodeHealth } from './health-server.ts';
