import type { JsonSchemaProps } from '../../../api/crd/index.ts';
import { customResourceDefinition } from '../../../api/crd/index.ts';
import { CUSTOM_RESOURCES } from '../../../machines/kinds.ts';
import type { AdmissionRequest, AdmissionVerdict } from './admission-review.ts';
import { schemaDefaults } from './schema-defaults.ts';

// The defaulting webhook: the defaults the CRD schemas declare (generated from the zod schemas,
// so from the same `.default()`s), as a JSON patch that only adds what the object lacks. The API
// server would apply them anyway; a webhook makes them visible in the object a client gets back
// from its create, and lets `kubectl apply --dry-run=server` show them.

// "group/Kind" to the schema of its served version, built once from the same definitions as the CRDs.
const SCHEMAS: ReadonlyMap<string, JsonSchemaProps> = new Map(CUSTOM_RESOURCES.map((resource) => {
  const crd = customResourceDefinition(resource);
  const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
  return [`${crd.spec.group}/${crd.spec.names.kind}`, version?.schema.openAPIV3Schema ?? {}];
}));

// Status is the controller's (and a create drops it); metadata has no schema defaults.
const SKIP: ReadonlySet<string> = new Set(['status', 'metadata', 'apiVersion', 'kind']);

export function admitDefaults(request: AdmissionRequest): AdmissionVerdict {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
  // A subresource write (status, scale) changes no spec: its defaults are the main resource's business.
  if (request.subResource) return { allowed: true };
  const schema = SCHEMAS.get(`${request.kind.group}/${request.kind.kind}`);
  if (!schema) {
    return { allowed: true, warnings: [`metalfleet does not default ${request.kind.group}/${request.kind.version} ${request.kind.kind}; admitted unchanged (check the webhook configuration's rules)`] };
  }
  const ops = schemaDefaults(schema, request.object, SKIP);
  if (ops.length === 0) return { allowed: true };
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}
