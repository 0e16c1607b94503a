import type { CompanionsSummary } from '../bus/messages/introspect.ts';
import type { ResourceStore, StoredObject } from '../ports/index.ts';

// What `inspect` and the host page show of a BareMetalHost's companions (issue 31.3), from the
// owner's store: read as the stores hand them out (loosely: a companion that does not parse is
// shown for what it holds, never refused here).

type Condition = { readonly type?: unknown; readonly status?: unknown };

function conditionTrue(status: Readonly<Record<string, unknown>> | undefined, type: string): boolean | null {
  const conditions = Array.isArray(status?.['conditions']) ? (status['conditions'] as Condition[]) : [];
  const found = conditions.find((c) => c.type === type);
  return found === undefined ? null : found.status === 'True';
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function settingsOf(hfs: StoredObject): NonNullable<CompanionsSummary['settings']> {
  const schema = record(hfs.status?.['schema'])['name'];
  return {
    reported: Object.keys(record(hfs.status?.['settings'])).length,
    asked: Object.keys(record(hfs.spec?.['settings'])).length,
    valid: conditionTrue(hfs.status, 'Valid'),
    changeDetected: conditionTrue(hfs.status, 'ChangeDetected'),
    ...(typeof schema === 'string' ? { schema } : {}),
  };
}

function componentsOf(hfc: StoredObject): NonNullable<CompanionsSummary['components']> {
  const listed = Array.isArray(hfc.status?.['components']) ? (hfc.status['components'] as unknown[]) : [];
  const versions = listed.map(record).map((c) => ({ component: String(c['component'] ?? ''), version: String(c['currentVersion'] ?? c['initialVersion'] ?? '') }));
  const updates = hfc.spec?.['updates'];
  return { versions, updatesAsked: Array.isArray(updates) ? updates.length : 0 };
}

export async function companionsSummary(store: ResourceStore, key: string): Promise<CompanionsSummary> {
  const [hd, hfs, hfc, hup] = await Promise.all([
    store.get('HardwareData', key), store.get('HostFirmwareSettings', key), store.get('HostFirmwareComponents', key), store.get('HostUpdatePolicy', key),
  ]);
  const policy = record(hup?.spec);
  return {
    hardwareData: hd !== undefined,
    ...(hfs ? { settings: settingsOf(hfs) } : {}),
    ...(hfc ? { components: componentsOf(hfc) } : {}),
    ...(hup ? { updatePolicy: { ...(typeof policy['firmwareSettings'] === 'string' ? { firmwareSettings: policy['firmwareSettings'] } : {}), ...(typeof policy['firmwareUpdates'] === 'string' ? { firmwareUpdates: policy['firmwareUpdates'] } : {}) } } : {}),
  };
}
