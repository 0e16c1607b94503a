import type { MaasDriver, Provisioner } from '../ports/index.ts';
import { checkPlugin } from './check-plugin.ts';
import type { BareMetalHostPlugin, MaasMachinePlugin, PluginContext, ProvisionerPlugin } from './contract.ts';
import { MAAS_DRIVER_METHODS, OPTIONAL_PROVISIONER_METHODS, PROVISIONER_METHODS } from './contract.ts';
import { PluginError } from './plugin-error.ts';
import { guardProvisioner, redact, secretOptionValues } from './guard.ts';
import { guardMaasDriver } from './maas-guard.ts';
import { errorMessage } from '../api/index.ts';

interface Entry {
  readonly plugin: ProvisionerPlugin;
  readonly source: string;
}

/**
 * The provisioners a node can use, by name: the built-in ones and the plugins it loaded, all
 * registered and checked the same way. Creating one runs its factory and checks the result's
 * methods, so a plugin that would fail does so at start-up, naming itself, not at the first host.
 */
export class ProvisionerRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly createTimeoutMs: number;
  private readonly callTimeoutMs: number;

  /**
   * createTimeoutMs: how long a plugin's factory may take before the start fails naming it;
   * callTimeoutMs: how long one of its calls may before it is a transient failure (a call that
   * would take longer answers `continuing` and is polled).
   */
  constructor(o: { readonly createTimeoutMs?: number; readonly callTimeoutMs?: number } = {}) {
    this.createTimeoutMs = o.createTimeoutMs ?? 60_000;
    this.callTimeoutMs = o.callTimeoutMs ?? 300_000;
  }

  register(candidate: unknown, source: string): ProvisionerPlugin {
    const plugin = checkPlugin(candidate, source);
    const taken = this.entries.get(plugin.name);
    if (taken) throw new PluginError(source, `name "${plugin.name}" is already registered by ${taken.source}`);
    this.entries.set(plugin.name, { plugin, source });
    return plugin;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(resource?: ProvisionerPlugin['resource']): string[] {
    return [...this.entries.values()].filter((e) => resource === undefined || e.plugin.resource === resource).map((e) => e.plugin.name);
  }

  /** BMC address schemes the BareMetalHost plugins declare, for admission to accept. */
  bmcSchemes(): string[] {
    const out = new Set<string>();
    for (const { plugin } of this.entries.values()) if (plugin.resource === 'BareMetalHost') for (const s of plugin.supports.bmcSchemes ?? []) out.add(s);
    return [...out];
  }

  describe(): Array<{ name: string; resource: string; source: string; operations: readonly string[]; description?: string }> {
    return [...this.entries.values()].map(({ plugin, source }) => ({
      name: plugin.name, resource: plugin.resource, source, operations: plugin.supports.operations,
      ...(plugin.description ? { description: plugin.description } : {}),
    }));
  }

  async createProvisioner(name: string, ctx: PluginContext): Promise<Provisioner> {
    const plugin = this.require(name, 'BareMetalHost') as BareMetalHostPlugin;
    const made = await this.run(plugin, ctx);
    const provisioner = checkMethods<Provisioner>(made, PROVISIONER_METHODS, this.label(plugin), 'Provisioner');
    checkOptionalMethods(provisioner, plugin.supports.operations, this.label(plugin));
    // A built-in backend is metalfleet's own code; a plugin's answers are checked on every call.
    return this.entries.get(name)?.source === 'built-in' ? provisioner : guardProvisioner(provisioner, this.label(plugin), ctx.options, this.callTimeoutMs);
  }

  async createMaasDriver(name: string, ctx: PluginContext): Promise<MaasDriver> {
    const plugin = this.require(name, 'MaasMachine') as MaasMachinePlugin;
    const made = await this.run(plugin, ctx);
    const driver = checkMethods<MaasDriver>(made, MAAS_DRIVER_METHODS, this.label(plugin), 'MaasDriver');
    // As for a Provisioner: a plugin's driver is checked on every call, a built-in one is trusted.
    return this.entries.get(name)?.source === 'built-in' ? driver : guardMaasDriver(driver, this.label(plugin), ctx.options, this.callTimeoutMs);
  }

  private require(name: string, resource: ProvisionerPlugin['resource']): ProvisionerPlugin {
    const entry = this.entries.get(name);
    const known = this.names(resource);
    if (!entry) throw new PluginError(name, `no such provisioner (known for ${resource}: ${known.join(', ') || 'none'})`);
    if (entry.plugin.resource !== resource) throw new PluginError(name, `drives ${entry.plugin.resource}, not ${resource} (known for ${resource}: ${known.join(', ') || 'none'})`);
    return entry.plugin;
  }

  private async run(plugin: ProvisionerPlugin, ctx: PluginContext): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const late = new PluginError(this.label(plugin), `create() did not finish within ${this.createTimeoutMs / 1000} s`);
    // A built-in backend's factory may wait as long as its own configuration says (an Ironic starting).
    const builtin = this.entries.get(plugin.name)?.source === 'built-in';
    const timeout = new Promise<never>((_, reject) => { if (!builtin) timer = setTimeout(() => reject(late), this.createTimeoutMs); });
    try {
      return await Promise.race([Promise.resolve().then(() => plugin.create(ctx)), timeout]);
    } catch (err) {
      if (err === late) throw err;
      // The reason, but never a credential from the options: the cause is kept only when it had none.
      const raw = errorMessage(err);
      const reason = redact(raw, secretOptionValues(ctx.options));
      throw new PluginError(this.label(plugin), `create() failed: ${reason}`, reason === raw ? { cause: err } : undefined);
    } finally {
      clearTimeout(timer);
    }
  }

  // "lab (/plugins/lab.mjs)": the name the user configures, and where it came from.
  private label(plugin: ProvisionerPlugin): string {
    const source = this.entries.get(plugin.name)?.source;
    return source === undefined || source === 'built-in' ? plugin.name : `${plugin.name} (${source})`;
  }
}

// An optional method is either absent or callable; one the plugin says it supports must be there.
function checkOptionalMethods(made: Provisioner, operations: readonly string[], plugin: string): void {
  for (const m of OPTIONAL_PROVISIONER_METHODS) {
    const value = (made as unknown as Record<string, unknown>)[m];
    if (value !== undefined && typeof value !== 'function') throw new PluginError(plugin, `create() returned a Provisioner whose ${m} is a ${typeof value}, not a method`);
    if (value === undefined && operations.includes(m)) throw new PluginError(plugin, `lists ${m} among its operations, but create() returned a Provisioner without a ${m} method`);
  }
}

function checkMethods<T>(made: unknown, methods: readonly string[], plugin: string, what: string): T {
  if (typeof made !== 'object' || made === null) throw new PluginError(plugin, `create() returned ${made === null ? 'null' : typeof made}, not a ${what}`);
  const missing = methods.filter((m) => typeof (made as Record<string, unknown>)[m] !== 'function');
  if (missing.length > 0) throw new PluginError(plugin, `create() returned a ${what} without ${missing.join(', ')}`);
  return made as T;
}
