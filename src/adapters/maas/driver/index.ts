export { createMaasDriver } from './maas-driver.ts';
