// Root device hints as IPA applies them before writing an image (get_os_install_device with
// ironic-lib's match_root_device_hints): the node's instance_info.root_device, else its
// properties.root_device, must match the install disk, or the deploy fails with DeviceNotFound.
// Expressions follow oslo's specs_matcher: an optional operator ("s==", "<in>", ">=", "<or> a
// <or> b", ...) before the value; strings default to "s==", the size (GiB) to "==".
import { AgentError } from './errors.ts';

/** A block device as IPA serializes one (hardware.BlockDevice): size in bytes. */
export interface BlockDevice {
  readonly name: string;
  readonly size: number;
  readonly model?: string;
  readonly vendor?: string;
  readonly serial?: string;
  readonly wwn?: string;
  readonly wwn_with_extension?: string;
  readonly wwn_vendor_extension?: string;
  readonly rotational?: boolean;
  readonly hctl?: string;
  readonly by_path?: string;
}

const KINDS = { size: 'int', model: 'str', vendor: 'str', serial: 'str', wwn: 'str', wwn_with_extension: 'str', wwn_vendor_extension: 'str', name: 'str', rotational: 'bool', hctl: 'str', by_path: 'str' } as const;
type HintName = keyof typeof KINDS;

// Longest first, so "s==" is not read as "=" and "<all-in>" not as "<in>".
const OPS = ['<all-in>', '<in>', 's==', 's!=', 's>=', 's<=', 's>', 's<', '==', '!=', '>=', '<=', '>', '<', '='] as const;

const obj = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The hints IPA reads from a node: instance_info.root_device, else properties.root_device; null for none. */
export function rootDeviceHints(node: unknown): Record<string, unknown> | null {
  const n = obj(node);
  const hints = obj(obj(n?.['instance_info'])?.['root_device']) ?? obj(obj(n?.['properties'])?.['root_device']);
  return hints !== null && Object.keys(hints).length > 0 ? hints : null;
}

function parse(expression: string): { op: string; values: string[] } {
  const e = expression.trim();
  if (e.startsWith('<or>')) return { op: '<or>', values: e.split('<or>').map((v) => v.trim()).filter((v) => v !== '') };
  for (const op of OPS) {
    if (e.startsWith(`${op} `)) return { op, values: [e.slice(op.length).trim()] };
  }
  return { op: '', values: [e] };
}

const BOOL_TRUE = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
const BOOL_FALSE = new Set(['0', 'f', 'false', 'off', 'n', 'no']);
function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  const s = String(v).trim().toLowerCase();
  return BOOL_TRUE.has(s) ? true : BOOL_FALSE.has(s) ? false : null;
}

function compare(op: string, device: string | number, hint: string): boolean {
  const n = (): [number, number] => [Number(device), Number(hint)];
  const s = String(device);
  switch (op) {
    case '=': case '>=': { const [a, b] = n(); return a >= b; }
    case '==': { const [a, b] = n(); return a === b; }
    case '!=': { const [a, b] = n(); return a !== b; }
    case '<=': { const [a, b] = n(); return a <= b; }
    case '<': { const [a, b] = n(); return a < b; }
    case '>': { const [a, b] = n(); return a > b; }
    case 's==': return s === hint;
    case 's!=': return s !== hint;
    case 's>=': return s >= hint;
    case 's<=': return s <= hint;
    case 's>': return s > hint;
    case 's<': return s < hint;
    case '<in>': return s.includes(hint);
    case '<all-in>': return hint.split(/\s+/).every((h) => s.includes(h));
    default: return false;
  }
}

// Python's repr of the hints, as IPA's message shows them.
const pyRepr = (hints: Record<string, unknown>): string =>
  `{${Object.entries(hints).map(([k, v]) => `'${k}': ${typeof v === 'string' ? `'${v}'` : typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v)}`).join(', ')}}`;

/** Whether `device` satisfies every hint; throws DeviceNotFound for hints IPA could not use. */
export function matchesHints(device: BlockDevice, hints: Record<string, unknown>): boolean {
  for (const [name, raw] of Object.entries(hints)) {
    const kind = (KINDS as Record<string, string>)[name];
    if (kind === undefined) {
      throw deviceNotFound(`No devices could be found using the root device hints ${pyRepr(hints)} because they failed to validate. Error: The hints "${name}" are invalid. Valid hints are: "${Object.keys(KINDS).join(', ')}"`);
    }
    const value = device[name as HintName];
    if (value === undefined || value === '') return false;
    if (kind === 'bool') {
      if (bool(raw) !== value) return false;
      continue;
    }
    const { op, values } = parse(String(raw));
    const deviceValue = kind === 'int' ? Number(value) / 2 ** 30 : String(value);
    const ok = op === '<or>' ? values.some((v) => compare(kind === 'int' ? '==' : 's==', deviceValue, v)) : compare(op || (kind === 'int' ? '==' : 's=='), deviceValue, values[0] ?? '');
    if (!ok) return false;
  }
  return true;
}

export const deviceNotFound = (details: string): AgentError =>
  new AgentError('DeviceNotFound', 404, 'Error finding the disk or partition device to deploy the image onto', details);

/** The install device for a node, as get_os_install_device picks it from the ramdisk's one disk. */
export function installDevice(device: BlockDevice, node: unknown): BlockDevice {
  const hints = rootDeviceHints(node);
  if (hints === null || matchesHints(device, hints)) return device;
  throw deviceNotFound(`No suitable device was found for deployment using these hints ${pyRepr(hints)}`);
}
