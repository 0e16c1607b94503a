import type { Operation } from '../machines/bmh/index.ts';
import type { Logger, MaasDriver, Provisioner } from '../ports/index.ts';

/**
 * The plugin contract this metalfleet implements. A plugin states the version it was written
 * for; a different one is refused at load time, before any host reaches it. Bumped only when a
 * change would break existing plugins (a new optional field is not such a change).
 */
export const PROVISIONER_CONTRACT_VERSION = 1;

/** What the node hands a plugin's factory. */
export interface PluginContext {
  /** This plugin's options from configuration, as strings: the plugin parses and checks them. */
  readonly options: Readonly<Record<string, string>>;
  /** Structured logger; a plugin must never log credentials or user data. */
  readonly log: Logger;
}

interface PluginBase {
  /** Lower-case letters, digits and dashes: what `--provisioner NAME` and the label name. */
  readonly name: string;
  readonly contractVersion: number;
  readonly description?: string;
}

/**
 * A backend for BareMetalHosts: its factory returns a Provisioner (src/ports/provisioner.ts).
 * Its capacity pools are named `<name>` or `<name>:…` (`lab:pdu-7`): a limit (--max-calls) is
 * checked against the loaded backends by the part before the first `:`.
 */
export interface BareMetalHostPlugin extends PluginBase {
  readonly resource: 'BareMetalHost';
  readonly supports: {
    /** The calls it implements for real; the others answer failed with a reason. */
    readonly operations: readonly Operation[];
    /** BMC address schemes it accepts (e.g. "redfish", "ipmi"); empty means any. */
    readonly bmcSchemes?: readonly string[];
  };
  create(ctx: PluginContext): Provisioner | Promise<Provisioner>;
}

/** A backend for MaasMachines: its factory returns a MaasDriver (src/ports/maas-driver.ts). */
export interface MaasMachinePlugin extends PluginBase {
  readonly resource: 'MaasMachine';
  readonly supports: { readonly operations: readonly string[] };
  create(ctx: PluginContext): MaasDriver | Promise<MaasDriver>;
}

export type ProvisionerPlugin = BareMetalHostPlugin | MaasMachinePlugin;

/** Identity, for plugin authors: `export default defineProvisionerPlugin({ ... })` type-checks the object. */
export function defineProvisionerPlugin<P extends ProvisionerPlugin>(plugin: P): P {
  return plugin;
}

/** The methods a Provisioner must have; a factory's result is checked for each before use. */
export const PROVISIONER_METHODS = [
  'capacity', 'register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt',
  'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete',
] as const satisfies ReadonlyArray<keyof Provisioner>;

/**
 * The methods a Provisioner may leave out (a host asking is told the backend cannot); when there,
 * each must be a function, and a plugin that lists one among its operations must have it.
 */
export const OPTIONAL_PROVISIONER_METHODS = ['service', 'firmware'] as const satisfies ReadonlyArray<keyof Provisioner>;

export const MAAS_DRIVER_METHODS = ['run', 'findDns', 'createDns', 'updateDns', 'deleteDns'] as const satisfies ReadonlyArray<keyof MaasDriver>;
