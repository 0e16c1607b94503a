import test from 'ava';
import { z } from 'zod';
import { CrdSchemaError, customResourceDefinitions, structuralSchema } from '../../src/api/crd/index.ts';
import { CUSTOM_RESOURCES } from '../../src/machines/kinds.ts';

// The API server validates a null value with only two of its validators: the type check (which
// `nullable: true` satisfies) and the common one, which checks `enum` (kube-openapi
// pkg/validation/validate/schema.go: `if data == nil { type validator; common validator }`).
// The enum check never matches null (a null enum member is skipped as typeless), so a field
// written `nullable: true` with an `enum` refuses the null zod's `.nullable()` accepts: the CRD
// and zod would disagree on every object with that null. The generator must stop instead.

const root = (shape: z.ZodRawShape): z.ZodType => z.object({ spec: z.object(shape) });

const NULLABLE_ENUMS: ReadonlyArray<readonly [string, z.ZodType]> = [
  ['z.enum().nullable()', z.enum(['a', 'b']).nullable().optional()],
  ['a union of an enum and z.null()', z.union([z.enum(['a', 'b']), z.null()]).optional()],
  ['a nullable literal', z.literal('x').nullable().optional()],
  ['a nullable union of enums', z.union([z.enum(['a']), z.literal(''), z.null()]).optional()],
];

for (const [what, field] of NULLABLE_ENUMS) {
  test(`crd nullable enum hunt - ${what} stops the generator, naming the field`, (t) => {
    const error = t.throws(() => structuralSchema(root({ field })), { instanceOf: CrdSchemaError });
    t.is(error?.path, 'spec.field');
    t.regex(error?.message ?? '', /enum/);
    t.regex(error?.message ?? '', /null/);
  });
}

test('crd nullable enum hunt - an enum that is not nullable, and a nullable field without enum, are still written', (t) => {
  const spec = structuralSchema(root({ mode: z.enum(['a', 'b']).optional(), end: z.string().nullable().optional() })).properties?.spec?.properties ?? {};
  t.deepEqual(spec.mode, { type: 'string', enum: ['a', 'b'] });
  t.deepEqual(spec.end, { type: 'string', nullable: true });
});

test('crd nullable enum hunt - every CRD metalfleet ships still generates', (t) => {
  t.is(customResourceDefinitions(CUSTOM_RESOURCES).length, CUSTOM_RESOURCES.length);
});
