// CRDs and RBAC rules generated from metalfleet's own definitions (`npm run gen:crds` writes them
// to deploy/). Loads zod and src/api only.
export { customResourceDefinition, customResourceDefinitions } from './crd.ts';
export type { CustomResourceDefinition, CustomResourceDefinitionVersion } from './crd.ts';
export { CAPI_CONTRACT_LABELS, MAAS_RESOURCE_BASE, PART_OF_LABEL } from './resources.ts';
export type { CustomResource, PrinterColumn } from './resources.ts';
export { CrdSchemaError, structuralSchema } from './structural.ts';
export { READ_DEFAULT, readDefault } from './read-default.ts';
export { JSON_SCHEMA_TYPES } from './json-schema-props.ts';
export type { JsonSchemaProps, JsonSchemaType } from './json-schema-props.ts';
export { clusterRole, policyRules } from './rbac.ts';
export type { ClusterRole, PolicyRule, ResourcePermission } from './rbac.ts';
