import type { BareMetalHost, FirmwareIntent, FirmwareReport, FirmwareUpdate, HardwareDetails } from '../../api/index.ts';
import { BMH_API_VERSION, BMH_KIND, deepEqual, errorMessage, FirmwareSchema, HostFirmwareComponents, HostFirmwareSettings, HostUpdatePolicy } from '../../api/index.ts';
import type { ComponentsSeen } from '../../machines/host-firmware-components/updates-status.ts';
import { componentsUpdatesStatus } from '../../machines/host-firmware-components/updates-status.ts';
import { firmwareIntentOf } from '../../machines/host-firmware-settings/firmware-intent.ts';
import { settingsStatus } from '../../machines/host-firmware-settings/settings-status.ts';
import { firmwareSchemaName, firmwareSchemaSpec } from '../../machines/firmware-schema/schema-name.ts';
import type { Fence, Logger, OwnerRef, ResourceStore, StoredObject } from '../../ports/index.ts';
import type { Clock } from '../runtime/index.ts';
import type { CompanionKind } from './parse-cache.ts';
import { isVersion, schemaParses } from './parse-cache.ts';
import type { z } from 'zod';

/** BMO's finalizer on HardwareData: it stays until the host's deletion takes it away. */
// BMO's (its hardwareDataFinalizer), so a HardwareData either controller wrote is the other's to free.
export const HARDWARE_DATA_FINALIZER = 'baremetalhost.metal3.io/hardwareData';
// What metalfleet wrote before it took BMO's name: removed with it, so such an object is not left Terminating.
const LEGACY_HARDWARE_DATA_FINALIZER = 'hardwaredata.metal3.io';

// The host's companions (machines/companion.ts) as its actor keeps them, as BMO's controllers do
// (baremetalhost_controller.go actionInspecting and createHostFirmware*; hostfirmwaresettings_
// controller.go; hostfirmwarecomponents_controller.go): HardwareData after inspection, the
// FirmwareSchema, HostFirmwareSettings and HostFirmwareComponents after a firmware read, and the
// HardwareData gone with the host. Writes of one host go one after another (a chain), fenced
// with its shard's lease like its status; the shared FirmwareSchema is written unfenced
// (firmware-schema/kind.ts says why). The machine never sees these writes: it asked for the
// read, and gets what the companions ask of it as a `firmwareIntent` event.
// Every host starts with nothing queued: one settled promise for all of them (issue 29: a host's bytes count).
const IDLE: Promise<unknown> = Promise.resolve();

// A companion this host has just read or written its status to, as the typed object it parsed or
// wrote: the version of its spec (a status write keeps it) and the very status object the store
// holds (it keeps the one it was given until the next status write replaces it, kind-records.ts),
// so a get that answers both is this object, and its parse would be this object again (the status
// schemas have no defaults or transforms; a test holds a parse to it).
interface Written {
  readonly kind: CompanionKind;
  readonly version: string;
  readonly status: unknown;
  readonly value: unknown;
}

export class HostCompanions {
  private chain: Promise<unknown> = IDLE;
  // What a firmware read read or wrote, for the intent read that always follows it (tellIntent): each
  // entry is taken by the next read of its kind, hit or miss, so a host at rest holds none
  // (issue 30: a parse kept per host cost every host ~2 KB).
  private written: readonly Written[] | null = null;

  constructor(private readonly key: string, private readonly store: ResourceStore, private readonly log: Logger, private readonly clock: Clock, private readonly fence?: Fence) {}

  /** HardwareData `<ns>/<host>` holds `hardware` in spec.hardware, created if absent. */
  hardwareFound(host: BareMetalHost, hardware: HardwareDetails): Promise<void> {
    return this.queue('writing HardwareData', async () => {
      const current = await this.store.get('HardwareData', this.key);
      if (current === undefined) {
        await this.store.createObject('HardwareData', {
          apiVersion: BMH_API_VERSION, kind: 'HardwareData',
          metadata: { name: host.metadata.name, namespace: host.metadata.namespace, finalizers: [HARDWARE_DATA_FINALIZER], ownerReferences: [hostOwner(host)] },
          spec: { hardware },
        }, this.fence);
      } else if (!deepEqual(current.spec?.['hardware'], hardware)) {
        await this.store.patchSpec('HardwareData', this.key, { hardware }, this.fence);
      }
    });
  }

  /**
   * The host is registered: its HostFirmwareSettings exist (empty spec when a user gave none), as
   * BMO's actionRegistering creates them, so its firmware is read and kept there.
   */
  registered(host: BareMetalHost): Promise<boolean> {
    let created = false;
    return this.queue('creating HostFirmwareSettings', async () => {
      if (host.metadata.deletionTimestamp || (await this.store.get('HostFirmwareSettings', this.key))) return;
      // Absent a moment ago: created straight away, not read (and parsed) twice more by ensure.
      await this.create('HostFirmwareSettings', host, { settings: {} });
      created = true;
    }).then(() => created);
  }

  /**
   * The host is gone: so is its HardwareData (its finalizer first, as BMO's deletion does), and the
   * settings and components it owns. Kubernetes' garbage collector would delete those through
   * their owner reference; a KV store has none, so the host's actor does it on either. A user's
   * own objects (not owned by this host) stay, as the collector would leave them.
   */
  hostGone(): Promise<void> {
    return this.queue('deleting the host\'s companions', async () => {
      const hardwareData = await this.store.get('HardwareData', this.key);
      if (hardwareData) {
        // Only the ones it carries: each removal is a read-modify-write of its own.
        const ours = (hardwareData.metadata.finalizers ?? []).filter((f) => f === HARDWARE_DATA_FINALIZER || f === LEGACY_HARDWARE_DATA_FINALIZER);
        for (const finalizer of ours) await this.store.removeFinalizer('HardwareData', this.key, finalizer, this.fence);
        await this.store.requestDelete('HardwareData', this.key);
      }
      for (const kind of ['HostFirmwareSettings', 'HostFirmwareComponents'] as const) {
        const owned = await this.store.get(kind, this.key);
        if (owned && this.ownsIt(owned)) await this.store.requestDelete(kind, this.key);
      }
    });
  }

  // Owned by this host: an owner reference to the BareMetalHost of its name (one key, one object).
  private ownsIt(object: StoredObject): boolean {
    const name = this.key.slice(this.key.indexOf('/') + 1);
    return (object.metadata.ownerReferences ?? []).some((r) => r.kind === BMH_KIND && r.name === name);
  }

  /** A firmware read came back: the schema, the settings and the components as it tells them. */
  firmwareRead(host: BareMetalHost, report: FirmwareReport): Promise<void> {
    return this.queue('writing firmware settings and components', async () => {
      const ns = host.metadata.namespace;
      const now = this.timestamp();
      const hfs = await this.ensure('HostFirmwareSettings', host, { settings: {} }, HostFirmwareSettings);
      const spec = firmwareSchemaSpec(report);
      let schemaRef: { name: string; namespace: string } | undefined;
      if (spec) {
        schemaRef = { name: firmwareSchemaName(spec.schema), namespace: ns };
        // Created once per vendor, model and registry, owned by none (firmware-schema/kind.ts says why).
        if (!(await this.store.get('FirmwareSchema', `${ns}/${schemaRef.name}`))) {
          await this.store.createObject('FirmwareSchema', { apiVersion: BMH_API_VERSION, kind: 'FirmwareSchema', metadata: { name: schemaRef.name, namespace: ns }, spec });
        }
      }
      if (hfs) {
        const change = settingsStatus(hfs, report, schemaRef, spec?.schema, now);
        if (change) {
          await this.store.writeStatus('HostFirmwareSettings', this.key, change.status, this.fence);
          this.wrote('HostFirmwareSettings', hfs, change.status);
          for (const reason of change.invalid) this.log.info({ host: this.key, reason: 'ValidationFailed' }, `Invalid BIOS setting: ${reason}`);
        }
      }
      if (report.components) {
        const hfc = await this.ensure('HostFirmwareComponents', host, { updates: [] }, HostFirmwareComponents);
        if (hfc) await this.writeComponents(hfc, { components: report.components }, now, true);
      }
    });
  }

  /**
   * A preparing or servicing that flashed `updates` finished: its HostFirmwareComponents record
   * them in status.updates (BMO's saveHostFirmwareComponents), so they are not flashed again by
   * this host after a restart, nor by the next owner of its shard. None when it has none.
   */
  updatesApplied(updates: readonly FirmwareUpdate[]): Promise<void> {
    return this.queue('recording the firmware updates applied', async () => {
      if (updates.length === 0) return;
      const hfc = await this.read('HostFirmwareComponents', this.key, HostFirmwareComponents);
      if (hfc) await this.writeComponents(hfc, { applied: updates }, this.timestamp(), false);
    });
  }

  // Writes what componentsUpdatesStatus makes of the HostFirmwareComponents, if anything;
  // `keep`: kept for the intent read that follows (see `written`).
  private async writeComponents(hfc: HostFirmwareComponents, seen: ComponentsSeen, now: string, keep: boolean): Promise<void> {
    const change = componentsUpdatesStatus(hfc, seen, now);
    if (!change) return;
    await this.store.writeStatus('HostFirmwareComponents', this.key, change.status, this.fence);
    if (keep) this.wrote('HostFirmwareComponents', hfc, change.status);
    // BMO's ValidationFailed event; the message names the component, never its URL.
    if (change.invalid !== null) this.log.info({ host: this.key, reason: 'ValidationFailed' }, change.invalid);
  }

  /**
   * A user changed the host's companions: Valid and ChangeDetected of its settings and of its
   * components follow at once from what was last read, as BMO's controllers judge a spec change,
   * rather than waiting for the next firmware read (on a provisioned host, its next servicing).
   */
  settingsChanged(): Promise<void> {
    void this.queue('judging firmware settings', async () => {
      const hfs = await this.read('HostFirmwareSettings', this.key, HostFirmwareSettings);
      const current = hfs?.status?.settings;
      if (!hfs || !current) return;
      const ref = hfs.status?.schema;
      const schema = ref ? await this.read('FirmwareSchema', `${ref.namespace}/${ref.name}`, FirmwareSchema) : undefined;
      const change = settingsStatus(hfs, { settings: current }, ref, schema?.spec?.schema, this.timestamp());
      if (!change) return;
      await this.store.writeStatus('HostFirmwareSettings', this.key, change.status, this.fence);
      for (const reason of change.invalid) this.log.info({ host: this.key, reason: 'ValidationFailed' }, `Invalid BIOS setting: ${reason}`);
    });
    // Queued after the settings: done, both are.
    return this.queue('judging firmware components', async () => {
      const hfc = await this.read('HostFirmwareComponents', this.key, HostFirmwareComponents);
      // Judged once the backend's components were read, as BMO's controller judges them only
      // after it got them.
      if (!hfc?.status?.components) return;
      await this.writeComponents(hfc, {}, this.timestamp(), false);
    });
  }

  /** What the companions ask of the host; null when it has none (nothing to tell the machine). */
  async intent(): Promise<FirmwareIntent | null> {
    const [hfs, hfc, hup] = await Promise.all([
      this.read('HostFirmwareSettings', this.key, HostFirmwareSettings),
      this.read('HostFirmwareComponents', this.key, HostFirmwareComponents),
      this.read('HostUpdatePolicy', this.key, HostUpdatePolicy),
    ]);
    if (!hfs && !hfc && !hup) return null;
    const ref = hfs?.status?.schema;
    const schema = ref ? await this.read('FirmwareSchema', `${ref.namespace}/${ref.name}`, FirmwareSchema) : undefined;
    return firmwareIntentOf(hfs, hfc, hup, schema);
  }

  /** After every write queued so far. */
  settled(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  // The companion of the host's name, created (BMO's createHostFirmware*) when absent.
  // Kept for the intent read that follows the firmware read (a status write replaces it).
  private async ensure<T>(kind: 'HostFirmwareSettings' | 'HostFirmwareComponents', host: BareMetalHost, spec: Record<string, unknown>, schema: z.ZodType<T>): Promise<T | undefined> {
    const found = await this.read(kind, this.key, schema, true);
    if (found) return found;
    await this.create(kind, host, spec);
    return this.read(kind, this.key, schema, true);
  }

  private create(kind: 'HostFirmwareSettings' | 'HostFirmwareComponents', host: BareMetalHost, spec: Record<string, unknown>): Promise<'created' | 'exists'> {
    return this.store.createObject(kind, { apiVersion: BMH_API_VERSION, kind, metadata: { name: host.metadata.name, namespace: host.metadata.namespace, ownerReferences: [hostOwner(host)] }, spec }, this.fence);
  }

  // The host's companion as it just wrote its status, kept for the next read of that kind.
  private wrote<T extends { readonly metadata: { readonly resourceVersion?: string | undefined } }>(kind: 'HostFirmwareSettings' | 'HostFirmwareComponents', read: T, status: unknown): void {
    this.hand(kind, read.metadata.resourceVersion, status, { ...read, status });
  }

  private hand(kind: CompanionKind, version: string | undefined, status: unknown, value: unknown): void {
    if (version === undefined) return;
    const others = (this.written ?? []).filter((w) => w.kind !== kind);
    this.written = [...others, { kind, version, status, value }];
  }

  // What this host wrote of `kind`, if `object` is that version: taken either way (a host at rest keeps none).
  private takeWritten(kind: CompanionKind, object: StoredObject | undefined): unknown {
    const written = this.written;
    if (written === null) return undefined;
    const mine = written.find((w) => w.kind === kind);
    if (mine === undefined) return undefined;
    const rest = written.filter((w) => w !== mine);
    this.written = rest.length === 0 ? null : rest;
    return object !== undefined && isVersion(object, mine.version, mine.status) ? mine.value : undefined;
  }

  // `keep`: the host's own companion, kept for its next read (see `written`).
  private async read<T>(kind: CompanionKind, key: string, schema: z.ZodType<T>, keep = false): Promise<T | undefined> {
    const object: StoredObject | undefined = await this.store.get(kind, key);
    // Its own write or read, just made: the typed object it wrote or parsed, not a parse of it again.
    const own = key === this.key ? this.takeWritten(kind, object) : undefined;
    const value = own !== undefined ? (own as T) : object === undefined ? undefined : this.parse(kind, key, object, schema);
    if (keep && object !== undefined && value !== undefined) this.hand(kind, object.metadata.resourceVersion, object.status, value);
    return value;
  }

  private parse<T>(kind: CompanionKind, key: string, object: StoredObject, schema: z.ZodType<T>): T | undefined {
    // The FirmwareSchema is one object (a vendor's whole BIOS registry) that every host of the model
    // reads on each intent: its parse is shared by the store's hosts (issue 30: a zod parse on every
    // read was 7% of a fleet's CPU). A host's own companions change between most of its reads (its
    // firmware reads write their status), and a parse kept per host would cost every host its bytes.
    const cache = kind === 'FirmwareSchema' ? schemaParses(this.store) : undefined;
    const known = cache?.get(kind, key, object);
    if (known !== undefined) return known as T;
    const parsed = schema.safeParse(object);
    if (parsed.success) {
      cache?.set(kind, key, object, parsed.data);
      return parsed.data;
    }
    // Admission checks these; one that is wrong anyway is treated as absent, and said once per read.
    this.log.warn({ host: this.key, kind, key, problem: parsed.error.issues[0]?.message }, `${kind} ${key} does not parse; treated as absent`);
    return undefined;
  }

  // RFC 3339 to the second, as the API server writes times.
  private timestamp(): string {
    return new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  private queue(doing: string, work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(work).catch((err: unknown) => {
      this.log.warn({ host: this.key, err: errorMessage(err) }, `${doing} failed`);
    });
    this.chain = next;
    return next;
  }
}

// The host as its companions' controller owner (Kubernetes' garbage collector deletes them with it).
function hostOwner(host: BareMetalHost): OwnerRef {
  return { apiVersion: BMH_API_VERSION, kind: BMH_KIND, name: host.metadata.name, controller: true, ...(host.metadata.uid ? { uid: host.metadata.uid } : {}) };
}
