// The part of apiextensions.k8s.io/v1 JSONSchemaProps a generated CRD uses. Anything the API server
// accepts but a structural schema forbids ($ref, definitions, additionalProperties: false,
// uniqueItems) has no field here, so the type itself keeps it out.

export type JsonSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface JsonSchemaProps {
  type?: JsonSchemaType;
  format?: string;
  title?: string;
  description?: string;
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
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps;
  items?: JsonSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-int-or-string'?: true;
}

export const JSON_SCHEMA_TYPES: readonly JsonSchemaType[] = ['object', 'array', 'string', 'integer', 'number', 'boolean'];
