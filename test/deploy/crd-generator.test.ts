import test from 'ava';
import { z } from 'zod';
import { pruneNulls } from '../../src/api/maas/index.ts';
import { CrdSchemaError, clusterRole, customResourceDefinition, policyRules, structuralSchema } from '../../src/api/crd/index.ts';
import { structuralViolations } from './openapi.ts';

// Where zod and a structural schema part ways, the generator either has a rule that says why the
// difference is harmless or stops with CrdSchemaError; one test per rule.

const root = (shape: z.ZodRawShape): z.ZodType => z.object({ spec: z.object(shape) });
const specOf = (schema: z.ZodType): Record<string, unknown> => structuralSchema(schema).properties?.spec?.properties ?? {};

test('crd generator - enums, nullable fields and int-or-string are the unions a CRD can express', (t) => {
  const spec = specOf(root({
    errorType: z.union([z.enum(['a', 'b']), z.literal('')]).optional(),
    end: z.string().nullable().optional(),
    volumes: z.array(z.string()).max(2).nullable(),
    nullViaUnion: z.union([z.int(), z.null()]),
    port: z.union([z.int(), z.string()]),
  }));
  t.deepEqual(spec.errorType, { type: 'string', enum: ['a', 'b', ''] });
  t.deepEqual(spec.end, { type: 'string', nullable: true });
  t.deepEqual(spec.volumes, { type: 'array', items: { type: 'string' }, maxItems: 2, nullable: true });
  t.deepEqual(spec.nullViaUnion, { type: 'integer', nullable: true });
  t.deepEqual(spec.port, { 'x-kubernetes-int-or-string': true });
});

test('crd generator - a union of objects stops the generator', (t) => {
  const error = t.throws(() => structuralSchema(root({ target: z.union([z.object({ a: z.string() }), z.object({ b: z.int() })]) })), { instanceOf: CrdSchemaError });
  t.is(error?.path, 'spec.target');
  t.regex(error?.message ?? '', /has no structural schema/);
});

test('crd generator - looseObject, record of unknown and unknown keep unknown fields', (t) => {
  const spec = specOf(root({
    hardware: z.looseObject({ hostname: z.string().optional() }),
    switchPort: z.looseObject({}),
    firmware: z.record(z.string(), z.unknown()),
    anything: z.unknown(),
    labels: z.record(z.string(), z.string()),
  }));
  t.deepEqual(spec.hardware, { type: 'object', properties: { hostname: { type: 'string' } }, 'x-kubernetes-preserve-unknown-fields': true });
  t.deepEqual(spec.switchPort, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  t.deepEqual(spec.firmware, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  t.deepEqual(spec.anything, { 'x-kubernetes-preserve-unknown-fields': true });
  t.deepEqual(spec.labels, { type: 'object', additionalProperties: { type: 'string' } });
});

test('crd generator - a strict object loses additionalProperties: false; a catchall beside fields stops the generator', (t) => {
  t.deepEqual(specOf(root({ closed: z.strictObject({ a: z.string() }) })).closed, { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  t.throws(() => structuralSchema(root({ open: z.object({ a: z.string() }).catchall(z.string()) })), { instanceOf: CrdSchemaError, message: /both fields and a catchall/ });
});

test('crd generator - defaults make a field optional and become schema defaults; integers lose the safe-integer bounds', (t) => {
  const body = structuralSchema(root({ mode: z.enum(['x', 'y']).default('x'), size: z.int().min(1).default(60), count: z.int() }));
  t.deepEqual(body.properties?.spec, {
    type: 'object',
    properties: { mode: { type: 'string', enum: ['x', 'y'], default: 'x' }, size: { type: 'integer', minimum: 1, default: 60 }, count: { type: 'integer' } },
    required: ['count'],
  });
});

test('crd generator - pruneNulls is the only preprocess, and nothing under it may be nullable', (t) => {
  const pruned = structuralSchema(z.preprocess(pruneNulls, z.object({ spec: z.object({ a: z.string().optional() }) })));
  t.deepEqual(pruned.properties?.spec, { type: 'object', properties: { a: { type: 'string' } } });
  t.throws(() => structuralSchema(z.object({ spec: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string()) })), { instanceOf: CrdSchemaError, message: /^spec: z\.preprocess/ });
  t.throws(() => structuralSchema(z.preprocess(pruneNulls, z.object({ spec: z.object({ a: z.string().nullable() }) }))), { instanceOf: CrdSchemaError, message: /spec\.a: nullable under pruneNulls/ });
});

test('crd generator - a registered schema is inlined, a recursive one stops the generator', (t) => {
  const Ref = z.object({ name: z.string() }).meta({ id: 'crd-generator-test-ref' });
  const spec = specOf(root({ a: Ref, b: Ref }));
  t.deepEqual(spec.a, { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
  t.deepEqual(spec.b, spec.a);
  const Tree: z.ZodType = z.lazy(() => z.object({ children: z.array(Tree) }));
  t.throws(() => structuralSchema(root({ tree: Tree })));
});

test('crd generator - types a CRD has no word for stop the generator', (t) => {
  t.throws(() => structuralSchema(root({ at: z.date() })));
  t.throws(() => structuralSchema(root({ pair: z.tuple([z.string(), z.int()]) })), { instanceOf: CrdSchemaError, message: /tuple/ });
});

test('crd generator - a pattern is carried over unless it needs JavaScript regexp features RE2 lacks', (t) => {
  t.deepEqual(specOf(root({ mac: z.string().regex(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/) })).mac, { type: 'string', pattern: '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$' });
  t.throws(() => structuralSchema(root({ name: z.string().regex(/^(?!-)[a-z-]+$/) })), { instanceOf: CrdSchemaError, message: /^spec\.name: pattern .*\(RE2\)/ });
  t.throws(() => structuralSchema(root({ twice: z.string().regex(/^(a)\1$/) })), { instanceOf: CrdSchemaError });
  t.throws(() => structuralSchema(root({ host: z.hostname() })), { instanceOf: CrdSchemaError });
});

test('crd generator - the object root: apiVersion, kind and metadata as controller-gen writes them', (t) => {
  const crd = customResourceDefinition({
    apiVersion: 'example.io/v1', kind: 'Widget', plural: 'widgets', singular: 'widget', description: 'A widget.', statusSubresource: false,
    schema: z.object({ apiVersion: z.literal('example.io/v1'), kind: z.literal('Widget'), metadata: z.object({ name: z.string(), namespace: z.string().default('default') }), spec: z.object({ size: z.int() }) }),
  });
  const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
  t.deepEqual(schema?.properties?.apiVersion, { type: 'string' });
  t.deepEqual(schema?.properties?.metadata, { type: 'object' });
  t.deepEqual(schema?.required, ['spec']);
  t.is(crd.spec.versions[0]?.subresources, undefined);
  t.deepEqual(structuralViolations(schema), []);
});

test('crd generator - a printer column must name a field the schema has', (t) => {
  const base = { apiVersion: 'example.io/v1', kind: 'Widget', plural: 'widgets', singular: 'widget', description: 'A widget.', statusSubresource: true, schema: z.object({ spec: z.object({ size: z.int() }) }) };
  t.notThrows(() => customResourceDefinition({ ...base, printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size', description: 'size' }, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'age' }] }));
  t.throws(() => customResourceDefinition({ ...base, printerColumns: [{ name: 'Colour', type: 'string', jsonPath: '.spec.colour', description: 'colour' }] }), { instanceOf: CrdSchemaError, message: /Colour/ });
});

test('crd generator - rules group by API group and verbs, whatever order the permissions come in', (t) => {
  const permissions = [
    { apiGroup: 'b.io', resource: 'things/status', verbs: ['patch', 'get'] },
    { apiGroup: '', resource: 'secrets', verbs: ['watch', 'get', 'list'] },
    { apiGroup: 'b.io', resource: 'things', verbs: ['get'] },
    { apiGroup: 'b.io', resource: 'others', verbs: ['get'] },
    { apiGroup: 'b.io', resource: 'things', verbs: ['list', 'get'] },
  ];
  const rules = policyRules(permissions);
  t.deepEqual(rules, [
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['b.io'], resources: ['others'], verbs: ['get'] },
    { apiGroups: ['b.io'], resources: ['things'], verbs: ['get', 'list'] },
    { apiGroups: ['b.io'], resources: ['things/status'], verbs: ['get', 'patch'] },
  ]);
  t.deepEqual(policyRules([...permissions].reverse()), rules);
  t.like(clusterRole('r', permissions), { kind: 'ClusterRole', metadata: { name: 'r' } });
});

test('crd generator - a wildcard or an empty verb list is refused', (t) => {
  t.throws(() => policyRules([{ apiGroup: '', resource: '*', verbs: ['get'] }]), { message: /wildcard/ });
  t.throws(() => policyRules([{ apiGroup: '', resource: 'pods', verbs: ['*'] }]), { message: /wildcard/ });
  t.throws(() => policyRules([{ apiGroup: '', resource: 'pods', verbs: [] }]), { message: /no verbs/ });
});
