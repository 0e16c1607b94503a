// Root device hints as IPA applies them before writing an image (get_os_install_device with
// ironic-lib's match_root_device_hints): the node's instance_info.root_device, else its
// properties.root_device, must match the install disk, or the deploy fails with DeviceNotFound.
// Expressions follow oslo's specs_matcher: an optional operator ("s==", "<in>", ">=", "<or> a
// <or> b", ...) before the value, a space after it optional; strings default to "s==", the size
// (GiB) to "==". As IPA's device_hints.py, a string hint and the device's own value are both
// lowercased and URL-quoted before they are compared: "<in> ssd" names a "SIM-SSD" disk.
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
const OPS: readonly string[] = ['<all-in>', '<in>', 's==', 's!=', 's>=', 's<=', 's>', 's<', '==', '!=', '>=', '<=', '>', '<', '='];

const obj = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The hints IPA reads from a node: instance_info.root_device, else properties.root_device; null for none. */
export function rootDeviceHints(node: unknown): Record<string, unknown> | null {
  const n = obj(node);
  // IPA: instance_info.get('root_device') or properties.get('root_device'): an empty dict falls through.
  const given = (v: unknown): Record<string, unknown> | null => {
    const o = obj(v);
    return o !== null && Object.keys(o).length > 0 ? o : null;
  };
  return given(obj(n?.['instance_info'])?.['root_device']) ?? given(obj(n?.['properties'])?.['root_device']);
}

// As _extract_hint_operator_and_values: the operator the expression starts with (pyparsing needs
// no space after it), then the values it separates; the expression is lowercased first.
function parse(expression: string): { op: string; values: string[] } {
  const e = expression.trim().toLowerCase();
  const op = e.startsWith('<or>') ? '<or>' : OPS.find((o) => e.startsWith(o) && e.slice(o.length).trim() !== '');
  if (op === undefined) return { op: '', values: [e] };
  return { op, values: e.split(op).filter((v) => v !== '').map((v) => v.trim()) };
}

// Python's urllib.parse.quote (safe "/"), which IPA applies to every string hint value and device value.
const quote = (s: string): string =>
  [...Buffer.from(s, 'utf8')].map((b) => (/^[A-Za-z0-9_.~/-]$/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

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
    const parsed = parse(String(raw));
    const op = parsed.op;
    // (<all-in> takes every word of its value; the quoting keeps words apart.)
    const values = kind === 'int' ? parsed.values : parsed.values.map((v) => (op === '<all-in>' ? v.split(/\s+/).map(quote).join(' ') : quote(v)));
    const deviceValue = kind === 'int' ? Number(value) / 2 ** 30 : quote(String(value).trim().toLowerCase());
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
