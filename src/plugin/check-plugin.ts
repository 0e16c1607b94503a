import { z } from 'zod';
import type { ProvisionerPlugin } from './contract.ts';
import { PROVISIONER_CONTRACT_VERSION } from './contract.ts';
import { PluginError } from './plugin-error.ts';

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const SCHEME = /^[a-z][a-z0-9+.-]*$/;

// The shape a module's plugin export must have. Checked with zod rather than trusted: a plugin
// is code written against an older or newer contract, or not a plugin at all.
const PluginShape = z.object({
  name: z.string().regex(NAME, 'must be lower-case letters, digits and dashes, at most 63'),
  contractVersion: z.number().int(),
  resource: z.enum(['BareMetalHost', 'MaasMachine']),
  description: z.string().optional(),
  supports: z.object({
    operations: z.array(z.string()).min(1, 'must list at least one operation'),
    // As an address's scheme is read (lower case, no "://"): any other could never be admitted.
    bmcSchemes: z.array(z.string().regex(SCHEME, 'must be a BMC address scheme as hosts write it before "://", in lower case (e.g. "lab")')).optional(),
  }),
  create: z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'must be a function (the factory)'),
});

/**
 * The plugin a module exports: its default export, or a named `provisionerPlugin`. A CommonJS
 * module's `default` is its whole exports object, so the plugin may be inside it: as
 * `exports.default` (TypeScript compiled to CommonJS) or `exports.provisionerPlugin`.
 */
export function pluginExportOf(mod: Record<string, unknown>): unknown {
  const def = mod['default'];
  const inner = typeof def === 'object' && def !== null ? def as Record<string, unknown> : {};
  const candidates = [def, inner['__esModule'] === true ? inner['default'] : undefined, mod['provisionerPlugin'], inner['provisionerPlugin']];
  return candidates.find(looksLikePlugin) ?? def ?? mod['provisionerPlugin'];
}

// Enough to tell a plugin object from an exports object that holds one; checkPlugin does the rest.
function looksLikePlugin(v: unknown): boolean {
  return typeof v === 'object' && v !== null && ('contractVersion' in v || 'create' in v);
}

/** Checks a candidate against the contract; PluginError naming `source` and the first problem. */
export function checkPlugin(candidate: unknown, source: string): ProvisionerPlugin {
  if (candidate === undefined || candidate === null) {
    throw new PluginError(source, 'exports no plugin: expected a default export (or `provisionerPlugin`) made with defineProvisionerPlugin({ name, contractVersion, resource, supports, create })');
  }
  // A plugin of another contract version likely has another shape too: its version is what to fix.
  const version = (candidate as { contractVersion?: unknown }).contractVersion;
  if (typeof version === 'number' && version !== PROVISIONER_CONTRACT_VERSION) throw versionMismatch(source, version);
  const parsed = PluginShape.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'export';
    throw new PluginError(source, `${field}: ${issue?.message ?? 'invalid'}`);
  }
  if (parsed.data.contractVersion !== PROVISIONER_CONTRACT_VERSION) throw versionMismatch(source, parsed.data.contractVersion);
  return candidate as ProvisionerPlugin;
}

function versionMismatch(source: string, version: number): PluginError {
  return new PluginError(source, `implements contract version ${version}; this metalfleet implements version ${PROVISIONER_CONTRACT_VERSION} (use a plugin release built for it)`);
}
