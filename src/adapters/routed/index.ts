export { createRoutedProvisioner } from './routed-provisioner.ts';
