// The inspect.metal3.io/hardwaredetails annotation decoded as BMO decodes it: encoding/json into
// its HardwareDetails struct (apis/metal3.io/v1alpha1/hardwaredata_types.go) with
// DisallowUnknownFields, in the controller and in the webhook alike. The struct tables below are
// Go's, field for field: a key no struct field matches is refused at any depth, so a host that
// BMO would refuse is refused here, and one BMO takes is taken.

type GoType =
  | { readonly go: 'string' | 'bool' | 'float64' }
  | { readonly go: 'int'; readonly bits: 32 | 64 }
  | { readonly go: 'slice'; readonly of: GoType }
  | { readonly go: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, GoType>> }
  | { readonly go: 'pointer'; readonly to: GoType };

const STRING: GoType = { go: 'string' };
const BOOL: GoType = { go: 'bool' };
const FLOAT64: GoType = { go: 'float64' };
const INT: GoType = { go: 'int', bits: 64 };
const INT32: GoType = { go: 'int', bits: 32 };
const struct = (name: string, fields: Record<string, GoType>): GoType => ({ go: 'struct', name, fields });
const slice = (of: GoType): GoType => ({ go: 'slice', of });

const VLAN = struct('VLAN', { id: INT32, name: STRING });
const LLDP = struct('LLDP', { switchID: STRING, portID: STRING, switchSystemName: STRING });
const NIC = struct('NIC', {
  name: STRING, model: STRING, mac: STRING, ip: STRING, speedGbps: INT, vlans: slice(VLAN), vlanId: INT32, pxe: BOOL,
  lldp: { go: 'pointer', to: LLDP }, pciAddress: STRING,
});
const STORAGE = struct('Storage', {
  name: STRING, alternateNames: slice(STRING), rotational: BOOL, type: STRING, sizeBytes: INT, vendor: STRING, model: STRING,
  serialNumber: STRING, wwn: STRING, wwnVendorExtension: STRING, wwnWithExtension: STRING, hctl: STRING,
});
const CPU = struct('CPU', { arch: STRING, model: STRING, clockMegahertz: FLOAT64, flags: slice(STRING), count: INT });
const BIOS = struct('BIOS', { date: STRING, vendor: STRING, version: STRING });
const HARDWARE_DETAILS = struct('HardwareDetails', {
  systemVendor: struct('HardwareSystemVendor', { manufacturer: STRING, productName: STRING, serialNumber: STRING }),
  firmware: struct('Firmware', { bios: BIOS }),
  ramMebibytes: INT,
  nics: slice(NIC),
  storage: slice(STORAGE),
  cpu: CPU,
  hostname: STRING,
});

export type GoDecoded = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function typeName(t: GoType): string {
  switch (t.go) {
    case 'int': return t.bits === 32 ? 'int32' : 'int';
    case 'slice': return `[]${typeName(t.of)}`;
    case 'struct': return t.name;
    case 'pointer': return `*${typeName(t.to)}`;
    default: return t.go;
  }
}

// encoding/json matches a key to a field exactly, else ignoring case (its fold); later keys win.
function fieldFor(fields: Readonly<Record<string, GoType>>, key: string): string | undefined {
  if (Object.hasOwn(fields, key)) return key;
  const lower = key.toLowerCase();
  return Object.keys(fields).find((f) => f.toLowerCase() === lower);
}

/**
 * Number literals of a JSON text written with a fraction or an exponent (`1.0`, `1e3`), by their
 * path as the Decoder names it (`storage[0].sizebytes`), lower-cased since encoding/json matches
 * keys without case. JSON.parse keeps only the value, and encoding/json decodes an int field
 * with strconv.ParseInt on the literal, so such a literal is no int to Go however whole its value.
 * The text must be valid JSON (parsed already).
 */
export function nonIntegerLiterals(text: string): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  const stack: Array<{ array: boolean; key: string; index: number }> = [];
  let expectKey = false;
  const here = (): string => stack.map((f, depth) => (f.array ? `[${f.index}]` : depth === 0 ? f.key : `.${f.key}`)).join('');
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '{' || c === '[') {
      stack.push({ array: c === '[', key: '', index: 0 });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else expectKey = true;
    } else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top && !top.array) {
        top.key = (JSON.parse(text.slice(i, end + 1)) as string).toLowerCase();
        expectKey = false;
      }
      i = end;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let end = i;
      while (end < text.length && /[0-9+\-.eE]/.test(text[end] as string)) end++;
      const literal = text.slice(i, end);
      if (/[.eE]/.test(literal)) found.set(here(), literal);
      i = end - 1;
    }
  }
  return found;
}

class Decoder {
  /** Go keeps decoding after a bad value and returns the first problem; so does this. */
  error: string | null = null;

  constructor(private readonly literals: ReadonlyMap<string, string> = new Map()) {}

  fail(reason: string): undefined {
    this.error ??= reason;
    return undefined;
  }

  // The value as Go would hold it, keys renamed to the field names; undefined = left at zero.
  decode(value: unknown, t: GoType, path: string): unknown {
    // null leaves the Go value as it is, whatever its type.
    if (value === null) return undefined;
    const mismatch = (): undefined => this.fail(`cannot unmarshal ${jsonType(value)} into ${path || 'HardwareDetails'} of type ${typeName(t)}`);
    switch (t.go) {
      case 'string': return typeof value === 'string' ? value : mismatch();
      case 'bool': return typeof value === 'boolean' ? value : mismatch();
      case 'float64': return typeof value === 'number' ? value : mismatch();
      case 'int': {
        if (typeof value !== 'number') return mismatch();
        const literal = this.literals.get(path.toLowerCase());
        if (literal !== undefined) return this.fail(`cannot unmarshal number ${literal} into ${path} of type ${typeName(t)}`);
        const limit = t.bits === 32 ? 2 ** 31 : 2 ** 63;
        if (!Number.isInteger(value) || value < -limit || value >= limit) {
          return this.fail(`cannot unmarshal number ${value} into ${path} of type ${typeName(t)}`);
        }
        return value;
      }
      case 'pointer': return this.decode(value, t.to, path);
      case 'slice': {
        if (!Array.isArray(value)) return mismatch();
        return value.map((item, i) => this.decode(item, t.of, `${path}[${i}]`) ?? zeroOf(t.of));
      }
      case 'struct': {
        if (jsonType(value) !== 'object') return mismatch();
        const out: Record<string, unknown> = {};
        for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
          const here = path === '' ? key : `${path}.${key}`;
          const field = fieldFor(t.fields, key);
          if (field === undefined) {
            this.fail(`unknown field "${here}"`);
            continue;
          }
          const decoded = this.decode(item, t.fields[field]!, path === '' ? field : `${path}.${field}`);
          if (decoded !== undefined) out[field] = decoded;
        }
        return out;
      }
    }
  }
}

// What a slice element that was null holds in Go: the zero value of its type.
function zeroOf(t: GoType): unknown {
  switch (t.go) {
    case 'string': return '';
    case 'bool': return false;
    case 'float64': case 'int': return 0;
    case 'slice': case 'pointer': return null;
    case 'struct': return {};
  }
}

/**
 * Decodes parsed JSON into BMO's HardwareDetails: every key must name a field of the struct it is
 * in (case-insensitively, as Go matches), every value must fit the field's Go type. The value
 * keeps the fields given, under their Go names; nulls are dropped (Go leaves the zero value).
 * `at` is where the details sit in the decoded document (`hardware` in a saved status), for paths.
 * `literals` (nonIntegerLiterals of the document's text) lets an int field refuse `1.0` as Go does.
 */
export function decodeHardwareDetails(json: unknown, at = '', literals?: ReadonlyMap<string, string>): GoDecoded {
  const decoder = new Decoder(literals);
  const value = decoder.decode(json, HARDWARE_DETAILS, at);
  if (decoder.error !== null) return { ok: false, reason: decoder.error };
  return { ok: true, value: (value ?? {}) as Record<string, unknown> };
}
