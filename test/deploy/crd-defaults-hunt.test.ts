import test from 'ava';
import { z } from 'zod';
import { CrdSchemaError, structuralSchema } from '../../src/api/crd/index.ts';
import { structuralViolations } from './openapi.ts';

// zod never checks a .default() value against the schema it defaults (it returns it as is), so
// `z.string().min(3).default('ab')` type-checks and parses. The API server does check: it refuses
// a CRD whose default fails the field's own schema (kube-api.md §8, "a default is pruned and
// validated like any value"). The generator must stop on such a default, naming the field, rather
// than write a CRD that `kubectl apply` is refused.

const root = (shape: z.ZodRawShape): z.ZodType => z.object({ spec: z.object(shape) });

const BAD_DEFAULTS: ReadonlyArray<readonly [string, z.ZodType]> = [
  ['a string shorter than its minLength', z.string().min(3).default('ab')],
  ['an integer below its minimum', z.int().min(1).default(0)],
  ['a string not matching its pattern', z.string().regex(/^[a-z]+$/).default('ABC')],
  ['an enum value the enum lacks', z.enum(['a', 'b']).default('c' as never)],
  ['an object without a required field', z.object({ name: z.string() }).default({} as never)],
  ['an array longer than its maxItems', z.array(z.string()).max(1).default(['a', 'b'])],
];

for (const [what, field] of BAD_DEFAULTS) {
  test(`crd defaults hunt - ${what} as a default stops the generator, naming the field`, (t) => {
    const error = t.throws(() => structuralSchema(root({ field })), { instanceOf: CrdSchemaError });
    t.is(error?.path, 'spec.field');
    t.regex(error?.message ?? '', /default/);
  });
}

test('crd defaults hunt - a default the schema accepts is still written', (t) => {
  const body = structuralSchema(root({ size: z.int().min(1).default(60), mode: z.enum(['x', 'y']).default('x'), obj: z.object({ a: z.string().default('z') }).default({ a: 'z' }) }));
  const spec = body.properties?.spec?.properties ?? {};
  t.is(spec.size?.default, 60);
  t.is(spec.mode?.default, 'x');
  t.deepEqual(spec.obj?.default, { a: 'z' });
  t.deepEqual(structuralViolations({ ...body, properties: { ...body.properties, metadata: { type: 'object' } } }), []);
});
