// Request bodies in `application/vnd.kubernetes.protobuf`, which kubectl 1.32 sends for built-in
// kinds (`kubectl create ns|secret|configmap|sa|deployment|service|clusterrole|clusterrolebinding|pdb`)
// with no JSON fallback. Only the message fields those commands fill are known (field numbers
// from k8s.io/api and apimachinery `generated.proto`); the result is the JSON object the Go type
// would marshal to (omitempty fields left out).
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

// `int` and `bool` are pointers or fields JSON always writes; `count` and `flag` are omitempty
// values Go's protobuf writes even at zero, which JSON leaves out.
type Kind = 'string' | 'bytes' | 'int' | 'count' | 'bool' | 'flag' | 'time' | 'strings' | 'stringMap' | 'bytesMap' | 'quantityMap' | 'intOrString'
  | { readonly message: Message; readonly repeated?: boolean };
type Message = Readonly<Record<number, readonly [string, Kind]>>;

const OWNER_REFERENCE: Message = {
  1: ['kind', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 5: ['apiVersion', 'string'], 6: ['controller', 'bool'], 7: ['blockOwnerDeletion', 'bool'],
};
const OBJECT_META: Message = {
  1: ['name', 'string'], 2: ['generateName', 'string'], 3: ['namespace', 'string'], 4: ['selfLink', 'string'], 5: ['uid', 'string'],
  6: ['resourceVersion', 'string'], 7: ['generation', 'count'], 8: ['creationTimestamp', 'time'], 9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int'], 11: ['labels', 'stringMap'], 12: ['annotations', 'stringMap'],
  13: ['ownerReferences', { message: OWNER_REFERENCE, repeated: true }], 14: ['finalizers', 'strings'],
};
const NAMESPACE_CONDITION: Message = { 1: ['type', 'string'], 2: ['status', 'string'], 4: ['lastTransitionTime', 'time'], 5: ['reason', 'string'], 6: ['message', 'string'] };
const meta = { 1: ['metadata', { message: OBJECT_META }] } as const;
const LABEL_SELECTOR: Message = {
  1: ['matchLabels', 'stringMap'],
  2: ['matchExpressions', { message: { 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['values', 'strings'] }, repeated: true }],
};
const LOCAL_REFERENCES = { message: { 1: ['name', 'string'] }, repeated: true } as const;
const CONTAINER: Message = {
  1: ['name', 'string'], 2: ['image', 'string'], 3: ['command', 'strings'], 4: ['args', 'strings'], 5: ['workingDir', 'string'],
  6: ['ports', { message: { 1: ['name', 'string'], 2: ['hostPort', 'count'], 3: ['containerPort', 'int'], 4: ['protocol', 'string'], 5: ['hostIP', 'string'] }, repeated: true }],
  7: ['env', { message: { 1: ['name', 'string'], 2: ['value', 'string'] }, repeated: true }],
  8: ['resources', { message: { 1: ['limits', 'quantityMap'], 2: ['requests', 'quantityMap'] } }],
  9: ['volumeMounts', { message: { 1: ['name', 'string'], 2: ['readOnly', 'flag'], 3: ['mountPath', 'string'], 4: ['subPath', 'string'] }, repeated: true }],
  13: ['terminationMessagePath', 'string'], 14: ['imagePullPolicy', 'string'], 16: ['stdin', 'flag'], 17: ['stdinOnce', 'flag'], 18: ['tty', 'flag'],
  20: ['terminationMessagePolicy', 'string'],
};
// PodSpec as `kubectl create deployment` fills it, and the simple fields beside.
const POD_SPEC: Message = {
  2: ['containers', { message: CONTAINER, repeated: true }], 3: ['restartPolicy', 'string'], 4: ['terminationGracePeriodSeconds', 'int'],
  6: ['dnsPolicy', 'string'], 7: ['nodeSelector', 'stringMap'], 8: ['serviceAccountName', 'string'], 9: ['serviceAccount', 'string'],
  10: ['nodeName', 'string'], 11: ['hostNetwork', 'flag'], 15: ['imagePullSecrets', LOCAL_REFERENCES], 16: ['hostname', 'string'],
  17: ['subdomain', 'string'], 19: ['schedulerName', 'string'], 20: ['initContainers', { message: CONTAINER, repeated: true }],
  21: ['automountServiceAccountToken', 'bool'], 24: ['priorityClassName', 'string'],
};
const MESSAGES: Partial<Record<string, Message>> = {
  Namespace: {
    ...meta,
    2: ['spec', { message: { 1: ['finalizers', 'strings'] } }],
    3: ['status', { message: { 1: ['phase', 'string'], 2: ['conditions', { message: NAMESPACE_CONDITION, repeated: true }] } }],
  },
  Secret: { ...meta, 2: ['data', 'bytesMap'], 3: ['type', 'string'], 4: ['stringData', 'stringMap'], 5: ['immutable', 'bool'] },
  ConfigMap: { ...meta, 2: ['data', 'stringMap'], 3: ['binaryData', 'bytesMap'], 4: ['immutable', 'bool'] },
  ServiceAccount: {
    ...meta, 2: ['secrets', { message: { 1: ['kind', 'string'], 2: ['namespace', 'string'], 3: ['name', 'string'] }, repeated: true }],
    3: ['imagePullSecrets', LOCAL_REFERENCES], 4: ['automountServiceAccountToken', 'bool'],
  },
  Service: {
    ...meta,
    2: ['spec', {
      message: {
        1: ['ports', { message: { 1: ['name', 'string'], 2: ['protocol', 'string'], 3: ['port', 'int'], 4: ['targetPort', 'intOrString'], 5: ['nodePort', 'count'], 6: ['appProtocol', 'string'] }, repeated: true }],
        2: ['selector', 'stringMap'], 3: ['clusterIP', 'string'], 4: ['type', 'string'], 5: ['externalIPs', 'strings'], 7: ['sessionAffinity', 'string'],
        8: ['loadBalancerIP', 'string'], 9: ['loadBalancerSourceRanges', 'strings'], 10: ['externalName', 'string'], 11: ['externalTrafficPolicy', 'string'],
        12: ['healthCheckNodePort', 'count'], 13: ['publishNotReadyAddresses', 'flag'], 17: ['ipFamilyPolicy', 'string'], 18: ['clusterIPs', 'strings'],
        19: ['ipFamilies', 'strings'], 20: ['allocateLoadBalancerNodePorts', 'bool'], 21: ['loadBalancerClass', 'string'], 22: ['internalTrafficPolicy', 'string'],
      },
    }],
    3: ['status', { message: {} }],
  },
  Deployment: {
    ...meta,
    2: ['spec', {
      message: {
        1: ['replicas', 'int'], 2: ['selector', { message: LABEL_SELECTOR }], 3: ['template', { message: { ...meta, 2: ['spec', { message: POD_SPEC }] } }],
        4: ['strategy', { message: { 1: ['type', 'string'], 2: ['rollingUpdate', { message: { 1: ['maxUnavailable', 'intOrString'], 2: ['maxSurge', 'intOrString'] } }] } }],
        5: ['minReadySeconds', 'count'], 6: ['revisionHistoryLimit', 'int'], 7: ['paused', 'flag'], 9: ['progressDeadlineSeconds', 'int'],
      },
    }],
    3: ['status', { message: {} }],
  },
  ClusterRole: {
    ...meta,
    2: ['rules', { message: { 1: ['verbs', 'strings'], 2: ['apiGroups', 'strings'], 3: ['resources', 'strings'], 4: ['resourceNames', 'strings'], 5: ['nonResourceURLs', 'strings'] }, repeated: true }],
    3: ['aggregationRule', { message: { 1: ['clusterRoleSelectors', { message: LABEL_SELECTOR, repeated: true }] } }],
  },
  ClusterRoleBinding: {
    ...meta,
    2: ['subjects', { message: { 1: ['kind', 'string'], 2: ['apiGroup', 'string'], 3: ['name', 'string'], 4: ['namespace', 'string'] }, repeated: true }],
    3: ['roleRef', { message: { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] } }],
  },
  PodDisruptionBudget: {
    ...meta,
    2: ['spec', { message: { 1: ['minAvailable', 'intOrString'], 2: ['selector', { message: LABEL_SELECTOR }], 3: ['maxUnavailable', 'intOrString'], 4: ['unhealthyPodEvictionPolicy', 'string'] } }],
    3: ['status', { message: {} }],
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
    else if (kind === 'count') {
      if (f.value !== 0n) out[name] = Number(BigInt.asIntN(64, f.value as bigint));
    } else if (kind === 'bool') out[name] = f.value !== 0n;
    else if (kind === 'flag') {
      if (f.value !== 0n) out[name] = true;
    } else if (kind === 'intOrString') {
      // intstr.IntOrString: type 0 is intVal, 1 is strVal; JSON writes the one value.
      const v = decodeMessage(bytes(), { 1: ['type', 'int'], 2: ['intVal', 'int'], 3: ['strVal', 'string'] });
      out[name] = v.type === 1 ? v.strVal ?? '' : v.intVal ?? 0;
    } else if (kind === 'quantityMap') {
      const entry = decodeMessage(bytes(), { 1: ['key', 'string'], 2: ['value', { message: { 1: ['string', 'string'] } }] });
      ((out[name] ??= {}) as Obj)[String(entry.key ?? '')] = (entry.value as Obj | undefined)?.string ?? '0';
    }
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
  return res.builtin !== undefined && MESSAGES[res.kind] !== undefined;
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
