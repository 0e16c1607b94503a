// The part of a CRD's openAPIV3Schema the test server acts on, parsed with zod from CRD input.
// Keywords it does not act on (description, title, x-kubernetes-validations, ...) are dropped.
import { z } from 'zod';

export interface JsonSchema {
  type?: string;
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  /** `atomic` objects are owned whole by server-side apply (list-types.ts). */
  'x-kubernetes-map-type'?: string;
  /** CEL rules: kept so a CRD that has them is reported as not fully enforced (see README). */
  'x-kubernetes-validations'?: unknown[];
}

export const JsonSchemaZ: z.ZodType<JsonSchema> = z.lazy(() => z.object({
  type: z.string().optional(),
  format: z.string().optional(),
  nullable: z.boolean().optional(),
  enum: z.array(z.unknown()).optional(),
  default: z.unknown().optional(),
  pattern: z.string().optional(),
  minLength: z.number().optional(),
  maxLength: z.number().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.boolean().optional(),
  exclusiveMaximum: z.boolean().optional(),
  multipleOf: z.number().optional(),
  minItems: z.number().optional(),
  maxItems: z.number().optional(),
  uniqueItems: z.boolean().optional(),
  minProperties: z.number().optional(),
  maxProperties: z.number().optional(),
  required: z.array(z.string()).optional(),
  properties: z.record(z.string(), JsonSchemaZ).optional(),
  additionalProperties: z.union([z.boolean(), JsonSchemaZ]).optional(),
  items: JsonSchemaZ.optional(),
  allOf: z.array(JsonSchemaZ).optional(),
  anyOf: z.array(JsonSchemaZ).optional(),
  oneOf: z.array(JsonSchemaZ).optional(),
  not: JsonSchemaZ.optional(),
  'x-kubernetes-preserve-unknown-fields': z.boolean().optional(),
  'x-kubernetes-int-or-string': z.boolean().optional(),
  'x-kubernetes-embedded-resource': z.boolean().optional(),
  'x-kubernetes-list-type': z.string().optional(),
  'x-kubernetes-list-map-keys': z.array(z.string()).optional(),
  'x-kubernetes-map-type': z.string().optional(),
  'x-kubernetes-validations': z.array(z.unknown()).optional(),
}));

export function preservesUnknown(s: JsonSchema | undefined): boolean {
  return s?.['x-kubernetes-preserve-unknown-fields'] === true;
}

/** The schema of a map's values: additionalProperties as a schema, or open for `true`. */
export function additionalSchema(s: JsonSchema): JsonSchema | undefined {
  const a = s.additionalProperties;
  if (a === undefined || a === false) return undefined;
  return a === true ? { 'x-kubernetes-preserve-unknown-fields': true } : a;
}
