// Query parameters and DeleteOptions bodies, parsed with zod at the edge; bad ones get the 400 or
// 422 the API server gives (`ValidateListOptions`, `ValidateDeleteOptions`, kube-api.md §2, §3).
import { z } from 'zod';
import { apiErrors } from './errors.ts';
import { forbidden, invalid, notSupported } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { queryFlag } from './routes.ts';
import type { FieldValidation } from './decode.ts';

const flag = z.string().transform((v) => queryFlag(v));
const int = z.string().transform((v, ctx) => {
  if (!/^[-+]?\d+$/.test(v)) {
    ctx.addIssue({ code: 'custom', message: `strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax` });
    return z.NEVER;
  }
  return Number(v);
});

const ListQueryZ = z.object({
  labelSelector: z.string().optional(),
  fieldSelector: z.string().optional(),
  resourceVersion: z.string().optional(),
  resourceVersionMatch: z.string().optional(),
  limit: int.optional(),
  continue: z.string().optional(),
  watch: flag.optional(),
  allowWatchBookmarks: flag.optional(),
  timeoutSeconds: int.optional(),
  sendInitialEvents: flag.optional(),
});
export type ListQuery = z.infer<typeof ListQueryZ>;

const WriteQueryZ = z.object({
  dryRun: z.string().optional(),
  fieldManager: z.string().optional(),
  fieldValidation: z.string().optional(),
  force: flag.optional(),
});

const DeleteBodyZ = z.object({
  gracePeriodSeconds: z.number().int().optional(),
  preconditions: z.object({ uid: z.string().optional(), resourceVersion: z.string().optional() }).optional(),
  orphanDependents: z.boolean().optional(),
  propagationPolicy: z.string().optional(),
  dryRun: z.array(z.string()).optional(),
});

const DeleteQueryZ = z.object({
  gracePeriodSeconds: int.optional(),
  propagationPolicy: z.string().optional(),
  orphanDependents: flag.optional(),
  dryRun: z.string().optional(),
});

/** The first value of each parameter, as Go's url.Values.Get reads it. */
function firstValues(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in out)) out[k] = v;
  return out;
}

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw apiErrors.badRequest(r.error.issues[0]?.message ?? 'invalid request parameters');
  return r.data;
}

export function listQuery(params: URLSearchParams): ListQuery {
  return parse(ListQueryZ, firstValues(params));
}

/** ValidateListOptions (list) and validateWatchOptions (watch). */
export function validateListQuery(q: ListQuery, watch: boolean): void {
  const errs: FieldError[] = [];
  const match = q.resourceVersionMatch;
  if (watch) {
    if (q.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errs.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match) {
      if (q.sendInitialEvents === undefined) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (q.continue) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match) {
      if (!q.resourceVersion) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (q.continue) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && q.resourceVersion === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (q.sendInitialEvents !== undefined) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length > 0) throw apiErrors.invalidOptions('ListOptions', errs);
}

export interface WriteQuery {
  readonly dryRun: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation: FieldValidation;
  readonly force?: boolean;
}

export function writeQuery(params: URLSearchParams, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): WriteQuery {
  const q = parse(WriteQueryZ, firstValues(params));
  const errs: FieldError[] = [];
  const dryRun = params.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) errs.push(notSupported('dryRun', dryRun, ['All']));
  const fv = q.fieldValidation ?? 'Warn';
  if (fv !== 'Ignore' && fv !== 'Warn' && fv !== 'Strict') errs.push(notSupported('fieldValidation', fv, ['Ignore', 'Strict', 'Warn']));
  if (q.fieldManager !== undefined && q.fieldManager.length > 128) errs.push(invalid('fieldManager', q.fieldManager, 'must be less than 128 characters'));
  if (errs.length > 0) throw apiErrors.invalidOptions(optionsKind, errs);
  return { dryRun: dryRun.length > 0, fieldManager: q.fieldManager, fieldValidation: fv as FieldValidation, force: q.force };
}

export interface DeleteQuery {
  readonly dryRun: boolean;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly orphanDependents?: boolean;
}

/** DeleteOptions from the body (if any) and the query; the body wins where both say something. */
export function deleteQuery(params: URLSearchParams, body: string): DeleteQuery {
  const q = parse(DeleteQueryZ, firstValues(params));
  let b: z.infer<typeof DeleteBodyZ> = {};
  if (body.trim() !== '') {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch (e) {
      throw apiErrors.badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
    b = parse(DeleteBodyZ, raw);
  }
  const policy = b.propagationPolicy ?? q.propagationPolicy;
  const orphan = b.orphanDependents ?? q.orphanDependents;
  const errs: FieldError[] = [];
  if (orphan !== undefined && policy !== undefined) errs.push(invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  if (policy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(policy)) {
    errs.push(notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  const dryRun = b.dryRun ?? params.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) errs.push(notSupported('dryRun', dryRun, ['All']));
  if (errs.length > 0) throw apiErrors.invalidOptions('DeleteOptions', errs);
  return { dryRun: dryRun.length > 0, uid: b.preconditions?.uid, resourceVersion: b.preconditions?.resourceVersion, orphanDependents: orphan };
}
