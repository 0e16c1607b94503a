// Request bodies in `application/vnd.kubernetes.protobuf`, which kubectl 1.32 sends for built-in
// kinds (`kubectl create ns`, `create secret`) with no JSON fallback. Only the message types those
// commands send are known (field numbers from k8s.io/api and apimachinery `generated.proto`); the
// result is the JSON object the Go type would marshal to (omitempty fields left out).
import { apiErrors, KubeApiError } from './errors.ts';
import type { Obj, ResourceDef } from './types.ts';

type Wire = { readonly field: number; readonly wire: number; readonly value: bigint | Buffer };

function* fields(buf: Buffer): Generator<Wire> {
  let pos = 0;
  const varint = (): bigint => {
    let out = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('unexpected EOF');
      const b = buf[pos++] as number;
      out |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return out;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const field = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) yield { field, wire, value: varint() };
    else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw new Error('unexpected EOF');
      yield { field, wire, value: buf.subarray(pos, pos + len) };
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`illegal wireType ${wire}`);
  }
}

type Kind = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'strings' | 'stringMap' | 'bytesMap' | { readonly message: Message; readonly repeated?: boolean };
type Message = Readonly<Record<number, readonly [string, Kind]>>;

const OWNER_REFERENCE: Message = {
  1: ['kind', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 5: ['apiVersion', 'string'], 6: ['controller', 'bool'], 7: ['blockOwnerDeletion', 'bool'],
};
const OBJECT_META: Message = {
  1: ['name', 'string'], 2: ['generateName', 'string'], 3: ['namespace', 'string'], 4: ['selfLink', 'string'], 5: ['uid', 'string'],
  6: ['resourceVersion', 'string'], 7: ['generation', 'int'], 8: ['creationTimestamp', 'time'], 9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int'], 11: ['labels', 'stringMap'], 12: ['annotations', 'stringMap'],
  13: ['ownerReferences', { message: OWNER_REFERENCE, repeated: true }], 14: ['finalizers', 'strings'],
};
const NAMESPACE_CONDITION: Message = { 1: ['type', 'string'], 2: ['status', 'string'], 4: ['lastTransitionTime', 'time'], 5: ['reason', 'string'], 6: ['message', 'string'] };
const MESSAGES: Partial<Record<string, Message>> = {
  Namespace: {
    1: ['metadata', { message: OBJECT_META }],
    2: ['spec', { message: { 1: ['finalizers', 'strings'] } }],
    3: ['status', { message: { 1: ['phase', 'string'], 2: ['conditions', { message: NAMESPACE_CONDITION, repeated: true }] } }],
  },
  Secret: {
    1: ['metadata', { message: OBJECT_META }], 2: ['data', 'bytesMap'], 3: ['type', 'string'], 4: ['stringData', 'stringMap'], 5: ['immutable', 'bool'],
  },
};

function decodeMessage(buf: Buffer, msg: Message): Obj {
  const out: Obj = {};
  for (const f of fields(buf)) {
    const spec = msg[f.field];
    if (!spec) continue;
    const [name, kind] = spec;
    const bytes = (): Buffer => (Buffer.isBuffer(f.value) ? f.value : Buffer.alloc(0));
    if (kind === 'string') out[name] = bytes().toString('utf8');
    else if (kind === 'bytes') out[name] = bytes().toString('base64');
    else if (kind === 'int') out[name] = Number(BigInt.asIntN(64, f.value as bigint));
    else if (kind === 'bool') out[name] = f.value !== 0n;
    else if (kind === 'strings') ((out[name] ??= []) as string[]).push(bytes().toString('utf8'));
    else if (kind === 'time') {
      const t = decodeMessage(bytes(), { 1: ['seconds', 'int'], 2: ['nanos', 'int'] });
      const seconds = typeof t.seconds === 'number' ? t.seconds : 0;
      // A zero Time marshals to null in JSON: leave it out.
      if (seconds !== 0) out[name] = new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    } else if (kind === 'stringMap' || kind === 'bytesMap') {
      const entry = decodeMessage(bytes(), { 1: ['key', 'string'], 2: ['value', kind === 'bytesMap' ? 'bytes' : 'string'] });
      ((out[name] ??= {}) as Obj)[String(entry.key ?? '')] = entry.value ?? '';
    } else if (kind.repeated) ((out[name] ??= []) as Obj[]).push(decodeMessage(bytes(), kind.message));
    else out[name] = decodeMessage(bytes(), kind.message);
  }
  // Go writes every string field; JSON leaves empty ones (omitempty) out.
  for (const [k, v] of Object.entries(out)) if (v === '') delete out[k];
  return out;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The JSON text of a `k8s\0`-prefixed runtime.Unknown envelope holding one of the known kinds. */
export function protobufToJson(res: ResourceDef, body: Buffer): string {
  const bad = (why: string): never => {
    throw apiErrors.badRequest(`the object provided is unrecognized (must be of type ${res.kind}): ${why}`);
  };
  if (!body.subarray(0, 4).equals(MAGIC)) bad('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  try {
    const unknown = decodeMessage(body.subarray(4), { 1: ['typeMeta', { message: { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] } }], 2: ['raw', 'bytes'] });
    const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
    const kind = typeMeta.kind ?? '';
    const msg = MESSAGES[kind];
    if (!msg) return bad(`no kind "${kind}" is registered for version "${typeMeta.apiVersion ?? ''}"`);
    const obj = decodeMessage(Buffer.from(String(unknown.raw ?? ''), 'base64'), msg);
    return JSON.stringify({ apiVersion: typeMeta.apiVersion, kind, ...obj });
  } catch (e) {
    if (e instanceof KubeApiError) throw e;
    return bad((e as Error).message);
  }
}

/** The kinds protobufToJson knows: only these advertise protobuf. */
export function decodesProtobuf(res: ResourceDef): boolean {
  return MESSAGES[res.kind] !== undefined && res.group === '';
}

// ---- encoding: /openapi/v2 as the gnostic openapi_v2.Document kubectl unmarshals ----

function varintBytes(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function lengthDelimited(field: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([...varintBytes((field << 3) | 2), ...varintBytes(payload.length)]), payload]);
}

const strField = (field: number, s: string): Buffer => lengthDelimited(field, Buffer.from(s, 'utf8'));
const msgField = (field: number, parts: readonly Buffer[]): Buffer => lengthDelimited(field, Buffer.concat(parts));

/** A JSON schema (v2 flavour) as openapi_v2.Schema: the keywords readers of types use. */
function encodeSchema(s: unknown): Buffer[] {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) return [];
  const o = s as Obj;
  const out: Buffer[] = [];
  if (typeof o.$ref === 'string') out.push(strField(1, o.$ref));
  if (typeof o.format === 'string') out.push(strField(2, o.format));
  if (typeof o.description === 'string') out.push(strField(4, o.description));
  if (Array.isArray(o.required)) for (const r of o.required) out.push(strField(19, String(r)));
  if (typeof o.additionalProperties === 'object' && o.additionalProperties !== null) out.push(msgField(21, [msgField(1, encodeSchema(o.additionalProperties))]));
  if (typeof o.type === 'string') out.push(msgField(22, [strField(1, o.type)]));
  if (typeof o.items === 'object' && o.items !== null) out.push(msgField(23, [msgField(1, encodeSchema(o.items))]));
  if (Array.isArray(o.allOf)) for (const a of o.allOf) out.push(msgField(24, encodeSchema(a)));
  if (typeof o.properties === 'object' && o.properties !== null) {
    const named = Object.entries(o.properties as Obj).map(([k, v]) => msgField(1, [strField(1, k), msgField(2, encodeSchema(v))]));
    out.push(msgField(25, named));
  }
  for (const [k, v] of Object.entries(o)) {
    if (!k.startsWith('x-kubernetes-') || v === undefined) continue;
    // NamedAny{name, value: Any{yaml}}; JSON is YAML.
    out.push(msgField(31, [strField(1, k), msgField(2, [strField(2, JSON.stringify(v))])]));
  }
  return out;
}

/** swagger, info and definitions of a Swagger 2.0 JSON document, protobuf-encoded. */
export function encodeOpenApiV2(doc: Obj): Buffer {
  const info = (doc.info ?? {}) as { title?: string; version?: string };
  const defs = Object.entries((doc.definitions ?? {}) as Obj).map(([k, v]) => msgField(1, [strField(1, k), msgField(2, encodeSchema(v))]));
  return Buffer.concat([
    strField(1, String(doc.swagger ?? '2.0')),
    msgField(2, [strField(1, info.title ?? ''), strField(2, info.version ?? '')]),
    msgField(8, []),
    msgField(9, defs),
  ]);
}
