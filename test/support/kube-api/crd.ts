// CustomResourceDefinitions (apiextensions.k8s.io/v1) into the resources the server serves: from
// objects or from a folder of (multi-document) YAML. A CRD the real server would refuse is refused
// here too, with its message, so a generated CRD that passes here also installs on a cluster.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { checkCrd } from './crd-structural.ts';
import { JsonSchemaZ } from './schema.ts';
import type { ResourceDef, VersionDef } from './types.ts';

const CrdVersionZ = z.object({
  name: z.string().min(1),
  served: z.boolean(),
  storage: z.boolean(),
  schema: z.object({ openAPIV3Schema: JsonSchemaZ.optional() }).optional(),
  subresources: z.object({
    status: z.record(z.string(), z.unknown()).optional(),
    scale: z.record(z.string(), z.unknown()).optional(),
  }).optional(),
  selectableFields: z.array(z.object({ jsonPath: z.string() })).optional(),
  additionalPrinterColumns: z.array(z.object({
    name: z.string(), type: z.string(), format: z.string().optional(), description: z.string().optional(),
    priority: z.number().int().optional(), jsonPath: z.string(),
  })).optional(),
});

export const CrdZ = z.object({
  apiVersion: z.literal('apiextensions.k8s.io/v1'),
  kind: z.literal('CustomResourceDefinition'),
  metadata: z.object({ name: z.string() }),
  spec: z.object({
    group: z.string(),
    names: z.object({
      plural: z.string().default(''),
      singular: z.string().optional(),
      kind: z.string().default(''),
      listKind: z.string().optional(),
      shortNames: z.array(z.string()).optional(),
      categories: z.array(z.string()).optional(),
    }),
    scope: z.string(),
    versions: z.array(CrdVersionZ),
    preserveUnknownFields: z.boolean().optional(),
  }),
});
export type Crd = z.infer<typeof CrdZ>;

/** A CRD the server cannot take: the message names the file or CRD and the first problem. */
export class CrdLoadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CrdLoadError';
  }
}

export function resourceFromCrd(input: unknown, source = 'crds option'): ResourceDef {
  const parsed = CrdZ.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'not a CRD';
    throw new CrdLoadError(`${source}: not an apiextensions.k8s.io/v1 CustomResourceDefinition: ${where}`);
  }
  const crd = parsed.data;
  const problems = checkCrd(crd);
  if (problems) throw new CrdLoadError(`${source}: ${problems}`);
  const { names } = crd.spec;
  const rawVersions = (input as { spec: { versions: { name: string; schema?: { openAPIV3Schema?: unknown } }[] } }).spec.versions;
  const versions: VersionDef[] = crd.spec.versions.filter((v) => v.served).map((v) => ({
    openApiSchema: rawVersions.find((r) => r.name === v.name)?.schema?.openAPIV3Schema,
    printerColumns: v.additionalPrinterColumns ?? [],
    name: v.name,
    storage: v.storage,
    schema: v.schema?.openAPIV3Schema,
    status: v.subresources?.status !== undefined,
    selectableFields: (v.selectableFields ?? []).map((f) => f.jsonPath.replace(/^\./, '')),
  }));
  return {
    group: crd.spec.group,
    plural: names.plural,
    singular: names.singular ?? names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    namespaced: crd.spec.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    versions,
    builtin: undefined,
  };
}

/** Every CRD in the folder's *.yaml, *.yml and *.json files; other kinds of document are skipped. */
export async function loadCrdDir(dir: string): Promise<ResourceDef[]> {
  return (await loadCrdDocs(dir)).map((d) => d.res);
}

/** The CRDs of a folder as written (for storing them as objects) with what they define. */
export async function loadCrdDocs(dir: string): Promise<{ readonly crd: Record<string, unknown>; readonly res: ResourceDef }[]> {
  const files = (await readdir(dir)).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
  const out: { crd: Record<string, unknown>; res: ResourceDef }[] = [];
  for (const file of files) {
    const path = join(dir, file);
    const text = await readFile(path, 'utf8');
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [docs];
    for (const [i, doc] of list.entries()) {
      if (doc.errors.length > 0) throw new CrdLoadError(`${path}: document ${i + 1} is not YAML: ${doc.errors[0]?.message}`);
      const value: unknown = doc.toJSON();
      if (!value || (value as { kind?: unknown }).kind !== 'CustomResourceDefinition') continue;
      out.push({ crd: value as Record<string, unknown>, res: resourceFromCrd(value, `${path} (document ${i + 1})`) });
    }
  }
  return out;
}
