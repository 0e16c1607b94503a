import type { Command } from 'commander';
import { createRoutedProvisioner } from '../adapters/routed/index.ts';
import { labelChecked } from '../adapters/routed/routed-provisioner.ts';
import type { ProvisionerPlugin } from '../plugin/index.ts';
import { PluginError, ProvisionerRegistry, loadPlugin, loadPluginFolder } from '../plugin/index.ts';
import type { Logger, Provisioner } from '../ports/index.ts';
import { CliError } from './cli-error.ts';
import { checkPoolKeys } from './config.ts';
import { didYouMean } from './did-you-mean.ts';
import { maxCallsOver } from './max-call-specs.ts';
import { errorMessage } from '../api/index.ts';

/** The label a BareMetalHost names its backend with, when a node serves several. */
export const PROVISIONER_LABEL = 'metalfleet.io/provisioner';

export interface ProvisionerFlags {
  readonly provisioner?: string;
  readonly plugin?: readonly string[];
  readonly pluginDir?: string;
  readonly provisionerOption?: readonly string[];
  /** --max-calls as given: its backend names are checked against the backends registered here. */
  readonly maxCalls?: readonly string[];
}

const repeat = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addProvisionerFlags(cmd: Command): Command {
  return cmd
    .option('--provisioner <name>', `backend for BareMetalHosts without a ${PROVISIONER_LABEL} label: a built-in one or a loaded plugin's name`)
    .option('--plugin <ref>', 'load a provisioner plugin by package name or path (repeatable); a bad one stops the start', repeat)
    .option('--plugin-dir <dir>', 'load every plugin in this folder (default METALFLEET_PLUGIN_DIR); a bad one is reported and skipped')
    .option('--provisioner-option <name.key=value>', 'an option for one provisioner, e.g. lab.provisionMs=50 (repeatable)', repeat);
}

export interface SelectedProvisioner {
  readonly provisioner: Provisioner;
  readonly registry: ProvisionerRegistry;
  /** The BareMetalHost backends serving hosts: the default first. */
  readonly active: readonly string[];
  /** Plugins from the folder that were not loaded, each with its reason. */
  readonly refused: readonly PluginError[];
}

/**
 * Registers the built-in backends and the plugins the flags name through one registry (the same
 * checks for both), then creates the default backend and every loaded plugin's. A plugin asked
 * for by name or --plugin must work or the start fails; one found in the plugin folder that does
 * not is reported and skipped, and the node serves the others.
 */
export async function selectProvisioner(o: {
  readonly flags: ProvisionerFlags;
  readonly builtins: readonly ProvisionerPlugin[];
  readonly defaultName: string;
  readonly pluginDir?: string;
  readonly cwd: string;
  readonly log: Logger;
  readonly warn: (line: string) => void;
}): Promise<SelectedProvisioner> {
  const registry = new ProvisionerRegistry();
  for (const builtin of o.builtins) registry.register(builtin, 'built-in');
  const { external, named, refused } = await registerPlugins(registry, o);
  const options = parseOptions(o.flags.provisionerOption ?? []);
  const defaultName = o.flags.provisioner ?? o.defaultName;
  const routes = new Map<string, Provisioner>();
  try {
    routes.set(defaultName, await registry.createProvisioner(defaultName, { options: options.get(defaultName) ?? {}, log: o.log.child({ provisioner: defaultName }) }));
  } catch (err) {
    const meant = registry.has(defaultName) ? '' : didYouMean(defaultName, registry.names('BareMetalHost'));
    throw builtinFailure(err) ?? new CliError(`--provisioner ${errorText(err)}${meant}`, 2);
  }
  for (const name of external) {
    if (routes.has(name) || !registry.names('BareMetalHost').includes(name)) continue;
    try {
      routes.set(name, await registry.createProvisioner(name, { options: options.get(name) ?? {}, log: o.log.child({ provisioner: name }) }));
    } catch (err) {
      // One the user named with --plugin must work, its factory too; one the folder held is skipped.
      if (named.has(name)) throw new CliError(`--plugin ${errorText(err)}`, 2);
      refused.push(err instanceof PluginError ? err : new PluginError(name, errorText(err)));
    }
  }
  checkMaxCallsNames(o.flags.maxCalls ?? [], registry, [...routes.values()]);
  for (const name of options.keys()) {
    if (!registry.has(name)) throw new CliError(`--provisioner-option ${name}.…: no provisioner "${name}" is loaded (known: ${registry.names().join(', ')})${didYouMean(name, registry.names())}`, 2);
  }
  for (const r of refused) o.warn(`warning: ${r.message}; skipped`);
  // One backend is called directly, but a host whose label names another is refused as the
  // router refuses it: a host meant for another backend is never driven by this one.
  const only = routes.size === 1 ? routes.get(defaultName) : undefined;
  return {
    provisioner: only ? labelChecked(only, { route: defaultName, label: PROVISIONER_LABEL }) : createRoutedProvisioner({ routes, label: PROVISIONER_LABEL, fallback: defaultName }),
    registry,
    active: [...routes.keys()],
    refused,
  };
}

// A --max-calls name no backend has was never looked up: that backend ran at the default bound.
// MAAS is a kind on every node: `node --maas` drives it without registering a plugin.
function checkMaxCallsNames(specs: readonly string[], registry: ProvisionerRegistry, made: readonly Provisioner[]): void {
  const given = maxCallsOver(specs, { limits: {}, defaultLimit: Number.POSITIVE_INFINITY });
  const kinds = [...new Set([...registry.names(), 'maas'])];
  checkPoolKeys(Object.keys(given.limits), { kinds, pools: made.flatMap(configuredPool) }, '--max-calls');
}

// The fixture (local or remote) says the one pool it was configured with; other backends make
// theirs host by host, under their kind.
function configuredPool(p: Provisioner): string[] {
  const pool = (p as { readonly capacityConfig?: { readonly pool?: unknown } }).capacityConfig?.pool;
  return typeof pool === 'string' ? [pool] : [];
}

// name.key=value, grouped by provisioner name.
function parseOptions(values: readonly string[]): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const value of values) {
    const match = /^([a-z0-9-]+)\.([A-Za-z0-9_.-]+)=(.*)$/s.exec(value);
    if (!match) throw new CliError(`--provisioner-option "${value}": expected NAME.KEY=VALUE, e.g. lab.provisionMs=50`, 2);
    const [, name, key, v] = match as unknown as [string, string, string, string];
    out.set(name, { ...out.get(name), [key]: v });
  }
  return out;
}

/**
 * A built-in backend's factory fails with the CLI's own error (an unreachable Ironic, a MAAS URL
 * without its key), already worded for the user and with its exit code: that one is passed on
 * as it is rather than as a plugin failure.
 */
export function builtinFailure(err: unknown): CliError | undefined {
  return err instanceof PluginError && err.cause instanceof CliError ? err.cause : undefined;
}

function errorText(err: unknown): string {
  return errorMessage(err);
}

/**
 * The BMC schemes the plugins named by --plugin and --plugin-dir declare, for commands that check
 * hosts without driving them (the webhook, validate): the modules are loaded and checked, their
 * factories never run. A bad --plugin stops the command; a bad one in the folder is reported.
 */
export async function declaredBmcSchemes(o: { readonly flags: Pick<ProvisionerFlags, 'plugin' | 'pluginDir'>; readonly pluginDir?: string; readonly cwd: string; readonly warn: (line: string) => void }): Promise<string[]> {
  const registry = new ProvisionerRegistry();
  const { refused } = await registerPlugins(registry, o);
  for (const r of refused) o.warn(`warning: ${r.message}; skipped`);
  return registry.bmcSchemes();
}

/**
 * Loads and registers the plugins of --plugin (each must load: a CliError otherwise) and of the
 * plugin folder (a bad one comes back in `refused`). Returns the names registered.
 */
async function registerPlugins(registry: ProvisionerRegistry, o: { readonly flags: Pick<ProvisionerFlags, 'plugin' | 'pluginDir'>; readonly pluginDir?: string; readonly cwd: string }): Promise<{ external: string[]; named: ReadonlySet<string>; refused: PluginError[] }> {
  const external: string[] = [];
  for (const ref of o.flags.plugin ?? []) {
    try {
      external.push(registry.register(await loadPlugin(ref, o.cwd), ref).name);
    } catch (err) {
      throw new CliError(`--plugin ${errorText(err)}`, 2);
    }
  }
  const named = new Set(external);
  const refused: PluginError[] = [];
  const dir = o.flags.pluginDir ?? o.pluginDir;
  if (dir === undefined) return { external, named, refused };
  // Named by where the folder came from: the flag, or the environment when the flag is absent.
  const source = o.flags.pluginDir !== undefined ? '--plugin-dir' : 'METALFLEET_PLUGIN_DIR';
  let loaded;
  try {
    loaded = await loadPluginFolder(dir);
  } catch (err) {
    throw new CliError(`${source} ${errorText(err)}`, 2);
  }
  refused.push(...loaded.refused);
  for (const { plugin, source } of loaded.plugins) {
    try {
      external.push(registry.register(plugin, source).name);
    } catch (err) {
      refused.push(err instanceof PluginError ? err : new PluginError(source, errorText(err)));
    }
  }
  return { external, named, refused };
}

const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];

/** --plugin and --plugin-dir alone, for commands that only need what plugins declare. */
export function addPluginFlags(cmd: Command): Command {
  return cmd
    .option('--plugin <ref>', 'a provisioner plugin (package name or path) whose BMC address schemes to admit (repeatable)', repeatable)
    .option('--plugin-dir <dir>', 'every plugin in this folder (default METALFLEET_PLUGIN_DIR)');
}
