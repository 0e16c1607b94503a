// MAAS node statuses: codes from src/maascommon/enums/node.py, labels from src/maascommon/node.py,
// legal moves from NODE_TRANSITIONS in src/maasserver/node_status.py (capmaas.md §3.4, §4.1).

export const NodeStatus = {
  New: 0,
  Commissioning: 1,
  FailedCommissioning: 2,
  Missing: 3,
  Ready: 4,
  Reserved: 5,
  Deployed: 6,
  Retired: 7,
  Broken: 8,
  Deploying: 9,
  Allocated: 10,
  FailedDeployment: 11,
  Releasing: 12,
  FailedReleasing: 13,
  DiskErasing: 14,
  FailedDiskErasing: 15,
  RescueMode: 16,
  EnteringRescueMode: 17,
  FailedEnteringRescueMode: 18,
  ExitingRescueMode: 19,
  FailedExitingRescueMode: 20,
  Testing: 21,
  FailedTesting: 22,
} as const;

export type NodeStatusCode = (typeof NodeStatus)[keyof typeof NodeStatus];

const S = NodeStatus;

const LABELS: Record<NodeStatusCode, string> = {
  [S.New]: 'New',
  [S.Commissioning]: 'Commissioning',
  [S.FailedCommissioning]: 'Failed commissioning',
  [S.Missing]: 'Missing',
  [S.Ready]: 'Ready',
  [S.Reserved]: 'Reserved',
  [S.Deployed]: 'Deployed',
  [S.Retired]: 'Retired',
  [S.Broken]: 'Broken',
  [S.Deploying]: 'Deploying',
  [S.Allocated]: 'Allocated',
  [S.FailedDeployment]: 'Failed deployment',
  [S.Releasing]: 'Releasing',
  [S.FailedReleasing]: 'Releasing failed',
  [S.DiskErasing]: 'Disk erasing',
  [S.FailedDiskErasing]: 'Failed disk erasing',
  [S.RescueMode]: 'Rescue mode',
  [S.EnteringRescueMode]: 'Entering rescue mode',
  [S.FailedEnteringRescueMode]: 'Failed to enter rescue mode',
  [S.ExitingRescueMode]: 'Exiting rescue mode',
  [S.FailedExitingRescueMode]: 'Failed to exit rescue mode',
  [S.Testing]: 'Testing',
  [S.FailedTesting]: 'Failed testing',
};

export function statusName(code: NodeStatusCode): string {
  return LABELS[code];
}

const TESTING_RESET: readonly NodeStatusCode[] = [
  S.Commissioning, S.FailedDeployment, S.Missing, S.Retired, S.Broken, S.FailedReleasing,
  S.FailedDiskErasing, S.FailedEnteringRescueMode, S.FailedExitingRescueMode, S.FailedTesting,
];

const TRANSITIONS: Record<NodeStatusCode, readonly NodeStatusCode[]> = {
  [S.New]: [S.Commissioning, S.Missing, S.Ready, S.Retired, S.Broken, S.EnteringRescueMode, S.Testing],
  [S.Commissioning]: [S.FailedCommissioning, S.Ready, S.Retired, S.Missing, S.New, S.Broken, S.Testing],
  [S.FailedCommissioning]: [S.Commissioning, S.Missing, S.Retired, S.Broken, S.EnteringRescueMode, S.Testing],
  [S.Ready]: [S.EnteringRescueMode, S.Commissioning, S.Allocated, S.Reserved, S.Retired, S.Missing, S.Broken, S.Testing],
  [S.Reserved]: [S.Ready, S.Allocated, S.Retired, S.Missing, S.Broken, S.DiskErasing, S.Releasing, S.EnteringRescueMode, S.Testing],
  [S.Allocated]: [S.Ready, S.Retired, S.Missing, S.Broken, S.Deploying, S.DiskErasing, S.Releasing, S.EnteringRescueMode, S.Testing],
  [S.Releasing]: [S.Allocated, S.Reserved, S.Deployed, S.Ready, S.Broken, S.Missing, S.FailedDeployment, S.FailedDiskErasing, S.FailedReleasing, S.New],
  [S.Deploying]: [S.Allocated, S.Missing, S.Broken, S.FailedDeployment, S.Deployed, S.Ready, S.DiskErasing, S.Releasing],
  [S.FailedDeployment]: [S.Allocated, S.Missing, S.Broken, S.Ready, S.DiskErasing, S.Releasing, S.EnteringRescueMode, S.Testing],
  [S.Deployed]: [S.Allocated, S.Missing, S.Broken, S.Ready, S.DiskErasing, S.Releasing, S.EnteringRescueMode, S.Testing],
  [S.Missing]: [S.New, S.Ready, S.Allocated, S.Commissioning, S.Broken, S.EnteringRescueMode, S.Testing],
  [S.Retired]: [S.New, S.Ready, S.Missing, S.Broken, S.EnteringRescueMode, S.Testing],
  [S.Broken]: [S.Commissioning, S.Ready, S.DiskErasing, S.Releasing, S.Deployed, S.EnteringRescueMode, S.Testing],
  [S.FailedReleasing]: [S.Releasing, S.DiskErasing, S.Ready, S.Broken, S.Testing],
  [S.DiskErasing]: [S.Broken, S.DiskErasing, S.FailedDiskErasing, S.Ready, S.Releasing],
  [S.FailedDiskErasing]: [S.DiskErasing, S.Releasing, S.Broken, S.Allocated, S.Ready, S.EnteringRescueMode, S.Testing],
  [S.EnteringRescueMode]: [S.Ready, S.Broken, S.Deployed, S.RescueMode, S.FailedEnteringRescueMode, S.ExitingRescueMode],
  [S.FailedEnteringRescueMode]: [S.Broken, S.EnteringRescueMode, S.ExitingRescueMode, S.Testing],
  [S.RescueMode]: [S.Broken, S.ExitingRescueMode, S.Testing],
  [S.ExitingRescueMode]: [
    S.New, S.Broken, S.FailedCommissioning, S.Ready, S.Reserved, S.Allocated, S.FailedDeployment, S.Deployed, S.Missing,
    S.Retired, S.FailedReleasing, S.FailedDiskErasing, S.RescueMode, S.FailedEnteringRescueMode, S.FailedExitingRescueMode, S.FailedTesting,
  ],
  [S.FailedExitingRescueMode]: [S.Broken, S.ExitingRescueMode, S.Testing],
  [S.Testing]: [S.Broken, S.New, S.Ready, S.Reserved, S.Allocated, S.Deployed, ...TESTING_RESET],
  [S.FailedTesting]: [S.Commissioning, S.Broken, S.Missing, S.EnteringRescueMode, S.Testing, S.Ready, S.Deployed],
};

/** Staying put is always legal, as in Node.clean_status. */
export function canTransition(from: NodeStatusCode, to: NodeStatusCode): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** The states op=release acts on (RELEASABLE_STATUSES in models/node.py). */
export const RELEASABLE: ReadonlySet<NodeStatusCode> = new Set([
  S.Allocated, S.Reserved, S.Broken, S.Deploying, S.Deployed, S.FailedDeployment, S.FailedDiskErasing, S.FailedReleasing,
]);

/** The status names a seed file may start a machine in: the resting ones. */
export const SEED_STATUSES = ['Ready', 'New', 'Broken', 'Deployed', 'Allocated', 'Failed deployment', 'Failed commissioning', 'Retired'] as const;
export type SeedStatus = (typeof SEED_STATUSES)[number];

const SEED_CODES: Record<SeedStatus, NodeStatusCode> = {
  Ready: S.Ready,
  New: S.New,
  Broken: S.Broken,
  Deployed: S.Deployed,
  Allocated: S.Allocated,
  'Failed deployment': S.FailedDeployment,
  'Failed commissioning': S.FailedCommissioning,
  Retired: S.Retired,
};

export function seedStatusCode(name: SeedStatus): NodeStatusCode {
  return SEED_CODES[name];
}

/**
 * The resting status a saved fleet records for a machine caught mid-way: where the running
 * operation was heading (a deploy to Deployed, a release or erase to Ready, commissioning to Ready).
 */
export function seedStatusOf(code: NodeStatusCode): SeedStatus {
  const resting: Partial<Record<NodeStatusCode, SeedStatus>> = {
    [S.Deploying]: 'Deployed',
    [S.Releasing]: 'Ready',
    [S.DiskErasing]: 'Ready',
    [S.Commissioning]: 'Ready',
    [S.Testing]: 'Ready',
    [S.FailedReleasing]: 'Broken',
    [S.FailedDiskErasing]: 'Broken',
    [S.FailedTesting]: 'Broken',
    [S.Missing]: 'Broken',
    [S.Reserved]: 'Allocated',
  };
  const direct = (Object.keys(SEED_CODES) as SeedStatus[]).find((k) => SEED_CODES[k] === code);
  return direct ?? resting[code] ?? 'Broken';
}

/** NODE_STATUS attribute names in lower case: what `status=` on GET machines/ takes ('failed_deployment'). */
export const STATUS_SHORT_LABELS: Readonly<Record<string, NodeStatusCode>> = Object.fromEntries(
  Object.entries(NodeStatus).map(([name, code]) => [name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase(), code]),
);

const FAILED: readonly NodeStatusCode[] = [
  S.FailedCommissioning, S.FailedDeployment, S.FailedDiskErasing, S.FailedEnteringRescueMode, S.FailedExitingRescueMode, S.FailedReleasing, S.FailedTesting,
];

/** SIMPLIFIED_NODE_STATUSES_MAP: the one-word status the UI groups by ('failed', 'releasing', ...). */
export function simpleStatus(code: NodeStatusCode): string {
  if (FAILED.includes(code)) return 'failed';
  if (code === S.DiskErasing || code === S.Releasing) return 'releasing';
  if (code === S.EnteringRescueMode || code === S.ExitingRescueMode || code === S.RescueMode) return 'rescue_mode';
  const same: Partial<Record<NodeStatusCode, string>> = {
    [S.Allocated]: 'allocated', [S.Broken]: 'broken', [S.Commissioning]: 'commissioning', [S.Deployed]: 'deployed',
    [S.Deploying]: 'deploying', [S.New]: 'new', [S.Ready]: 'ready', [S.Testing]: 'testing',
  };
  return same[code] ?? 'other';
}

export const SIMPLE_STATUSES: readonly string[] = ['allocated', 'broken', 'commissioning', 'deployed', 'deploying', 'failed', 'new', 'other', 'ready', 'releasing', 'rescue_mode', 'testing'];
