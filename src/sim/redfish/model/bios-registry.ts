// A BIOS attribute registry (DMTF AttributeRegistry): the rules each BIOS attribute follows. A BMC
// publishes it under /redfish/v1/Registries and checks every PATCH of Bios/Settings against it;
// sushy parses it (sushy/resources/registry/attribute_registry.py) and Ironic copies its fields into
// the node's BIOS settings (ironic/drivers/modules/redfish/bios.py, API 1.74), which BMO turns into
// a FirmwareSchema shared by every host of the same vendor and model.
export const BIOS_ATTRIBUTE_TYPES = ['Enumeration', 'String', 'Integer', 'Boolean', 'Password'] as const;
export type BiosAttributeType = (typeof BIOS_ATTRIBUTE_TYPES)[number];
export type BiosValue = string | number | boolean;

export interface BiosAttributeRule {
  name: string;
  type: BiosAttributeType;
  displayName: string;
  /** What ResetBios restores; null for a read-only attribute the firmware fills in (a serial number). */
  defaultValue: BiosValue | null;
  readOnly: boolean;
  resetRequired: boolean;
  /** IsSystemUniqueProperty: the value differs from server to server, so it is not copied between them. */
  unique: boolean;
  /** Enumeration: the allowed ValueNames. */
  values?: readonly string[];
  /** Integer bounds and step. */
  lowerBound?: number;
  upperBound?: number;
  scalarIncrement?: number;
  /** String and Password length bounds. */
  minLength?: number;
  maxLength?: number;
}

export interface BiosRegistry {
  /** The registry's Id, what Bios.AttributeRegistry names: <Registry>.v<major>_<minor>_<errata>. */
  id: string;
  /** Registry prefix and major.minor, the MessageRegistryFile's Registry field. */
  registry: string;
  version: string;
  owningEntity: string;
  vendor: string;
  model: string;
  attributes: readonly BiosAttributeRule[];
}

/** A refusal as a BMC words it: the Base registry message and the attribute it is about. */
export interface BiosProblem {
  messageId: 'PropertyUnknown' | 'PropertyNotWritable' | 'PropertyValueTypeError' | 'PropertyValueNotInList' | 'PropertyValueOutOfRange' | 'PropertyValueFormatError';
  message: string;
  attribute: string;
}

export function ruleOf(registry: BiosRegistry, name: string): BiosAttributeRule | undefined {
  return registry.attributes.find((a) => a.name === name);
}

function valueProblem(rule: BiosAttributeRule, value: unknown): BiosProblem | undefined {
  const at = (messageId: BiosProblem['messageId'], message: string): BiosProblem => ({ messageId, message: `BIOS attribute ${rule.name}: ${message}`, attribute: rule.name });
  const shown = rule.type === 'Password' ? 'the value given' : JSON.stringify(value);
  switch (rule.type) {
    case 'Enumeration':
      if (typeof value !== 'string') return at('PropertyValueTypeError', `${shown} is not a string; it takes one of ${(rule.values ?? []).join(', ')}`);
      if (!(rule.values ?? []).includes(value)) return at('PropertyValueNotInList', `${shown} is not one of ${(rule.values ?? []).join(', ')}`);
      return undefined;
    case 'Integer':
      // A number as a string ("5") is refused as real BMCs refuse it: Ironic before 2026 sent such strings.
      if (typeof value !== 'number' || !Number.isInteger(value)) return at('PropertyValueTypeError', `${shown} is not an integer`);
      if ((rule.lowerBound !== undefined && value < rule.lowerBound) || (rule.upperBound !== undefined && value > rule.upperBound)) return at('PropertyValueOutOfRange', `${shown} is outside ${rule.lowerBound ?? '-inf'}..${rule.upperBound ?? 'inf'}`);
      if (rule.scalarIncrement !== undefined && rule.scalarIncrement > 0 && (value - (rule.lowerBound ?? 0)) % rule.scalarIncrement !== 0) return at('PropertyValueOutOfRange', `${shown} is not a step of ${rule.scalarIncrement} from ${rule.lowerBound ?? 0}`);
      return undefined;
    case 'Boolean':
      return typeof value === 'boolean' ? undefined : at('PropertyValueTypeError', `${shown} is not true or false`);
    case 'String':
    case 'Password':
      if (typeof value !== 'string') return at('PropertyValueTypeError', `${shown} is not a string`);
      if ((rule.minLength !== undefined && value.length < rule.minLength) || (rule.maxLength !== undefined && value.length > rule.maxLength)) return at('PropertyValueFormatError', `${shown} is ${value.length} characters long, not ${rule.minLength ?? 0}..${rule.maxLength ?? 'any'}`);
      return undefined;
  }
}

/** Why `changes` cannot be staged, or undefined: each a known, writable attribute with a value its rule allows. */
export function biosProblem(registry: BiosRegistry, changes: Record<string, unknown>): BiosProblem | undefined {
  for (const [name, value] of Object.entries(changes)) {
    const rule = ruleOf(registry, name);
    if (!rule) return { messageId: 'PropertyUnknown', message: `BIOS attribute ${name} is not in ${registry.id}`, attribute: name };
    if (rule.readOnly) return { messageId: 'PropertyNotWritable', message: `BIOS attribute ${name} is read-only`, attribute: name };
    const problem = valueProblem(rule, value);
    if (problem) return problem;
  }
  return undefined;
}

/** Why a new password cannot be set, or undefined (Bios.ChangePassword follows the attribute's rule). */
export function passwordProblem(registry: BiosRegistry, name: string, value: string): BiosProblem | undefined {
  const rule = ruleOf(registry, name);
  if (!rule || rule.type !== 'Password') return { messageId: 'PropertyUnknown', message: `${name} is not a BIOS password of ${registry.id}`, attribute: name };
  return valueProblem(rule, value);
}

/** The registry as a BMC serves it: #AttributeRegistry with RegistryEntries.Attributes[]. */
export function registryBody(registry: BiosRegistry, path: string): object {
  return {
    '@odata.id': path,
    '@odata.type': '#AttributeRegistry.v1_3_6.AttributeRegistry',
    Id: registry.id,
    Name: `${registry.model} BIOS Attribute Registry`,
    Description: `The BIOS attributes of the ${registry.vendor} ${registry.model}`,
    Language: 'en',
    OwningEntity: registry.owningEntity,
    RegistryVersion: registry.version,
    SupportedSystems: [{ ProductName: registry.model, SystemId: registry.model, FirmwareVersion: registry.version }],
    RegistryEntries: {
      Attributes: registry.attributes.map((a) => ({
        AttributeName: a.name,
        DisplayName: a.displayName,
        Type: a.type,
        DefaultValue: a.type === 'Password' ? null : a.defaultValue,
        ReadOnly: a.readOnly,
        ResetRequired: a.resetRequired,
        IsSystemUniqueProperty: a.unique,
        Immutable: a.readOnly,
        Hidden: false,
        ...(a.values ? { Value: a.values.map((v) => ({ ValueName: v, ValueDisplayName: v })) } : {}),
        ...(a.lowerBound !== undefined ? { LowerBound: a.lowerBound } : {}),
        ...(a.upperBound !== undefined ? { UpperBound: a.upperBound } : {}),
        ...(a.scalarIncrement !== undefined ? { ScalarIncrement: a.scalarIncrement } : {}),
        ...(a.minLength !== undefined ? { MinLength: a.minLength } : {}),
        ...(a.maxLength !== undefined ? { MaxLength: a.maxLength } : {}),
      })),
      Menus: [{ MenuName: 'SystemSetup', DisplayName: 'System Setup', MenuPath: './', ReadOnly: false }],
      Dependencies: [],
    },
  };
}
