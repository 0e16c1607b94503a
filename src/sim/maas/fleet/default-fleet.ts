import type { SeedMachine } from './seed.ts';

// The fleet a simulator gets when none is given: two zones, two pools, sizes from small to large
// so cost ordering shows, and tags that overlap so multi-tag allocation has something to narrow.
// A few have a second disk or a fast second NIC, so storage and interfaces constraints can match.
export const DEFAULT_FLEET: readonly SeedMachine[] = [
  { hostname: 'node-01', zone: 'az1', pool: 'default', cpuCount: 4, memoryMb: 8192, tags: ['virtual'] },
  { hostname: 'node-02', zone: 'az1', pool: 'default', cpuCount: 8, memoryMb: 16384, tags: ['ssd'] },
  { hostname: 'node-03', zone: 'az1', pool: 'default', cpuCount: 16, memoryMb: 32768, tags: ['ssd', '10g'] },
  {
    hostname: 'node-04', zone: 'az1', pool: 'default', cpuCount: 32, memoryMb: 65536, tags: ['ssd', '10g', 'numa'],
    disks: [{ sizeGb: 480, tags: ['ssd'] }, { name: 'sdb', sizeGb: 2000, tags: ['rotary'] }],
    nics: [{}, { linkSpeedMbps: 10000 }],
  },
  { hostname: 'node-05', zone: 'az2', pool: 'default', cpuCount: 4, memoryMb: 8192, tags: [] },
  { hostname: 'node-06', zone: 'az2', pool: 'default', cpuCount: 8, memoryMb: 16384, tags: ['ssd'] },
  {
    hostname: 'node-07', zone: 'az2', pool: 'default', cpuCount: 16, memoryMb: 65536, tags: ['ssd', '10g'],
    disks: [{ sizeGb: 480, tags: ['ssd'] }, { name: 'sdb', sizeGb: 960, tags: ['ssd'] }],
    nics: [{}, { linkSpeedMbps: 10000 }],
  },
  { hostname: 'node-08', zone: 'az2', pool: 'default', cpuCount: 2, memoryMb: 4096, tags: ['virtual'] },
  { hostname: 'gpu-01', zone: 'az1', pool: 'gpu', cpuCount: 32, memoryMb: 131072, tags: ['gpu', 'nvidia', 'ssd'] },
  {
    hostname: 'gpu-02', zone: 'az1', pool: 'gpu', cpuCount: 64, memoryMb: 262144, tags: ['gpu', 'nvidia', '10g'],
    disks: [{ sizeGb: 960, tags: ['ssd'] }, { name: 'nvme0n1', sizeGb: 3840, tags: ['ssd', 'nvme'] }],
    nics: [{}, { linkSpeedMbps: 25000 }],
  },
  { hostname: 'gpu-03', zone: 'az2', pool: 'gpu', cpuCount: 32, memoryMb: 131072, tags: ['gpu', 'amd'] },
  { hostname: 'gpu-04', zone: 'az2', pool: 'gpu', cpuCount: 48, memoryMb: 196608, tags: ['gpu', 'nvidia', 'ssd'] },
];
