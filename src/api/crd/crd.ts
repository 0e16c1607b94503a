import type { JsonSchemaProps } from './json-schema-props.ts';
import type { CustomResource, PrinterColumn } from './resources.ts';
import { CrdSchemaError, structuralSchema } from './structural.ts';

// apiextensions.k8s.io/v1 CustomResourceDefinitions built from the resource table, one version
// each, served and stored.

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: JsonSchemaProps };
  subresources?: { status: Record<string, never> };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    scope: 'Namespaced';
    versions: CustomResourceDefinitionVersion[];
  };
}

const TYPE_META = ['apiVersion', 'kind', 'metadata'];

export function customResourceDefinition(resource: CustomResource): CustomResourceDefinition {
  const [group, version] = splitApiVersion(resource.apiVersion);
  const openAPIV3Schema = objectSchema(structuralSchema(resource.schema), resource.description);
  for (const column of resource.printerColumns ?? []) checkColumn(openAPIV3Schema, column, resource.kind);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource.plural}.${group}`, ...(resource.labels ? { labels: { ...resource.labels } } : {}) },
    spec: {
      group,
      names: {
        kind: resource.kind,
        listKind: `${resource.kind}List`,
        plural: resource.plural,
        singular: resource.singular,
        ...(resource.shortNames ? { shortNames: [...resource.shortNames] } : {}),
        ...(resource.categories ? { categories: [...resource.categories] } : {}),
      },
      scope: 'Namespaced',
      versions: [{
        name: version,
        served: true,
        storage: true,
        schema: { openAPIV3Schema },
        ...(resource.statusSubresource ? { subresources: { status: {} } } : {}),
        ...(resource.printerColumns ? { additionalPrinterColumns: resource.printerColumns.map((c) => ({ ...c })) } : {}),
      }],
    },
  };
}

/** The CRDs of these resources, in their order (metalfleet's: machines/kinds.ts CUSTOM_RESOURCES). */
export function customResourceDefinitions(resources: readonly CustomResource[]): CustomResourceDefinition[] {
  return resources.map(customResourceDefinition);
}

// The API server checks apiVersion and kind against the CRD and validates ObjectMeta itself; a
// structural schema may constrain no more of metadata than name and generateName (kube-api.md
// §8), and zod's default namespace must not become a schema default (the namespace comes from
// the URL). So the three are written as controller-gen writes them, and none is required.
function objectSchema(body: JsonSchemaProps, description: string): JsonSchemaProps {
  const { required: all = [], ...rest } = body;
  const required = all.filter((name) => !TYPE_META.includes(name));
  return {
    ...rest,
    description,
    properties: { ...rest.properties, apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' } },
    ...(required.length > 0 ? { required } : {}),
  };
}

// A column whose path the schema does not have shows an empty cell forever; a renamed zod field
// must fail the generator instead.
function checkColumn(schema: JsonSchemaProps, column: PrinterColumn, kind: string): void {
  const segments = column.jsonPath.split('.').slice(1);
  let node: JsonSchemaProps | undefined = schema;
  for (const [i, name] of segments.entries()) {
    if (i === 1 && segments[0] === 'metadata') return;
    node = node?.properties?.[name];
    if (!node) throw new CrdSchemaError(segments.slice(0, i + 1).join('.'), `${kind} printer column ${column.name} (${column.jsonPath}) names a field the schema does not have`);
  }
}

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  if (slash <= 0) throw new CrdSchemaError('apiVersion', `${apiVersion} is not group/version; a CRD cannot serve the core group`);
  return [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}
