import { badRequest, MaasApiError } from '../http/api-error.ts';
import { pyJsonDumps } from '../http/py-format.ts';

// The global settings behind maas/ op=get_config and op=set_config: the names clients read most,
// with MAAS's defaults (maasservicelayer/models/configurations.py) and its Django form checks.
// A name outside the table is MAAS's "not a valid config setting" 400.

export type ConfigValue = string | number | boolean | null;

type Item =
  | { readonly kind: 'string'; readonly value: string | null }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: number | null; readonly min?: number }
  | { readonly kind: 'choice'; readonly value: string; readonly choices: readonly string[] };

const DEFAULTS: Readonly<Record<string, Item>> = {
  maas_name: { kind: 'string', value: 'metalfleet-sim' },
  theme: { kind: 'string', value: '' },
  kernel_opts: { kind: 'string', value: null },
  default_dns_ttl: { kind: 'int', value: 30, min: 1 },
  upstream_dns: { kind: 'string', value: null },
  dnssec_validation: { kind: 'choice', value: 'auto', choices: ['auto', 'yes', 'no'] },
  maas_internal_domain: { kind: 'string', value: 'maas-internal' },
  remote_syslog: { kind: 'string', value: null },
  default_osystem: { kind: 'choice', value: 'ubuntu', choices: ['ubuntu'] },
  default_distro_series: { kind: 'string', value: 'noble' },
  default_min_hwe_kernel: { kind: 'string', value: '' },
  default_storage_layout: { kind: 'choice', value: 'flat', choices: ['bcache', 'blank', 'custom', 'flat', 'lvm', 'vmfs6', 'vmfs7'] },
  enable_kernel_crash_dump: { kind: 'bool', value: false },
  commissioning_osystem: { kind: 'choice', value: 'ubuntu', choices: ['ubuntu'] },
  commissioning_distro_series: { kind: 'string', value: 'noble' },
  enable_third_party_drivers: { kind: 'bool', value: true },
  enable_disk_erasing_on_release: { kind: 'bool', value: false },
  disk_erase_with_secure_erase: { kind: 'bool', value: true },
  disk_erase_with_quick_erase: { kind: 'bool', value: false },
  boot_images_auto_import: { kind: 'bool', value: true },
  curtin_verbose: { kind: 'bool', value: true },
  enable_analytics: { kind: 'bool', value: true },
  completed_intro: { kind: 'bool', value: false },
  release_notifications: { kind: 'bool', value: true },
  node_timeout: { kind: 'int', value: 30, min: 1 },
  enlist_commissioning: { kind: 'bool', value: true },
  maas_auto_ipmi_user: { kind: 'string', value: 'maas' },
  ntp_servers: { kind: 'string', value: 'ntp.ubuntu.com' },
  ntp_external_only: { kind: 'bool', value: false },
  enable_http_proxy: { kind: 'bool', value: true },
  http_proxy: { kind: 'string', value: null },
  use_peer_proxy: { kind: 'bool', value: false },
  network_discovery: { kind: 'choice', value: 'enabled', choices: ['enabled', 'disabled'] },
  active_discovery_interval: { kind: 'int', value: 10800 },
  maas_url: { kind: 'string', value: 'http://localhost:5240/MAAS' },
};

/** The names in their table order, as MAAS lists them in the invalid-setting message. */
export const CONFIG_NAMES: readonly string[] = Object.keys(DEFAULTS);

// maasserver/api/maas.py keeps the old singular name working.
const rewriteName = (name: string) => (name === 'ntp_server' ? 'ntp_servers' : name);

function invalidName(name: string): MaasApiError {
  // forms.ValidationError({name: [INVALID_SETTING_MSG_TEMPLATE % name]}): a JSON field dict.
  return new MaasApiError(400, pyJsonDumps({ [name]: [`${name} is not a valid config setting (valid settings are: ${CONFIG_NAMES.join(', ')}).`] }), 'application/json');
}

function fieldError(name: string, message: string): MaasApiError {
  return new MaasApiError(400, pyJsonDumps({ [name]: [message] }), 'application/json');
}

/** A setting whose value lives elsewhere (e.g. the fleet's erase-on-release default). */
export interface BoundSetting {
  get(): ConfigValue;
  set(value: ConfigValue): void;
}

export class MaasConfig {
  private readonly values = new Map<string, ConfigValue>();
  private readonly bound = new Map<string, BoundSetting>();

  constructor(overrides: Readonly<Record<string, ConfigValue>> = {}) {
    for (const [name, item] of Object.entries(DEFAULTS)) this.values.set(name, item.value);
    for (const [name, value] of Object.entries(overrides)) {
      if (!this.values.has(name)) throw new RangeError(`MaasConfig: ${name}: not a config setting the simulator knows`);
      this.values.set(name, value);
    }
  }

  /** From now on `name` is read from and written to `setting`. */
  bind(name: string, setting: BoundSetting): void {
    if (!this.values.has(name)) throw new RangeError(`MaasConfig.bind: ${name}: not a config setting the simulator knows`);
    this.bound.set(name, setting);
  }

  /** op=get_config: the value, or MAAS's 400 for a missing or unknown name. */
  get(rawName: string | undefined): ConfigValue {
    if (rawName === undefined) throw badRequest('No provided name!');
    const name = rewriteName(rawName);
    if (!this.values.has(name)) throw invalidName(name);
    const bound = this.bound.get(name);
    return bound ? bound.get() : (this.values.get(name) ?? null);
  }

  /** op=set_config: the value is checked the way the setting's Django form field checks it. */
  set(rawName: string | undefined, rawValue: string | undefined): void {
    if (rawName === undefined) throw badRequest('No provided name!');
    if (rawName === '') throw badRequest('Invalid name: Enter a value 1 characters long or more');
    if (rawValue === undefined) throw badRequest('No provided value!');
    const name = rewriteName(rawName);
    const item = DEFAULTS[name];
    if (!item) throw invalidName(name);
    const value = parseValue(name, item, rawValue);
    const bound = this.bound.get(name);
    if (bound) bound.set(value);
    else this.values.set(name, value);
  }
}

function parseValue(name: string, item: Item, raw: string): ConfigValue {
  switch (item.kind) {
    case 'string':
      return raw;
    case 'bool':
      // django.forms.BooleanField: "false" and "0" (any case) are False, so is "", anything else True.
      return !(raw === '' || ['false', '0'].includes(raw.toLowerCase()));
    case 'int': {
      const text = raw.trim();
      if (text === '') return null;
      if (!/^[+-]?\d+$/.test(text)) throw fieldError(name, 'Enter a whole number.');
      const n = Number(text);
      if (item.min !== undefined && n < item.min) throw fieldError(name, `Ensure this value is greater than or equal to ${item.min}.`);
      return n;
    }
    case 'choice':
      if (!item.choices.includes(raw)) throw fieldError(name, `Select a valid choice. ${raw} is not one of the available choices.`);
      return raw;
  }
}
