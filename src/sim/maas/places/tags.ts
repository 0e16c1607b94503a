import { conflict, forbidden, notFound, validationError } from '../http/api-error.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';

// Tags (src/maasserver/api/tags.py): the names allocate may ask for, and the manual
// POST /tags/{name}/op-update_nodes CAPMAAS uses for its maintenance tags (capmaas.md §3.2).
// A tag's definition would be an XPath over lshw output the simulator has not got, so only
// manual tags (empty definition) are made; a definition is refused as an invalid expression.

interface TagRecord {
  name: string;
  comment: string;
  readonly definition: string;
  kernelOpts: string;
}

/** Whatever carries tag names: machines and devices. */
export interface Tagged {
  tags: string[];
}

const TAG_NAME = /^[a-zA-Z0-9_-]+$/;
const NO_DEFINITIONS = 'Invalid XPath expression: the simulator does not evaluate tag definitions; make a manual tag (no definition) and use update_nodes.';

function tagJson(t: TagRecord) {
  return { name: t.name, definition: t.definition, comment: t.comment, kernel_opts: t.kernelOpts, resource_uri: `${API_PREFIX}/tags/${t.name}/` };
}

type TagJson = ReturnType<typeof tagJson>;

export class TagBook {
  private readonly tags = new Map<string, TagRecord>();

  /** A tag that exists because a seeded machine carries it. */
  ensure(name: string): void {
    if (!this.tags.has(name)) this.tags.set(name, { name, comment: '', definition: '', kernelOpts: '' });
  }

  names(): ReadonlySet<string> {
    return new Set(this.tags.keys());
  }

  list(): TagJson[] {
    return [...this.tags.values()].map(tagJson);
  }

  read(name: string): TagJson {
    return tagJson(this.get(name));
  }

  // POST /tags/ (superusers only; PermissionDenied carries no text)
  create(user: SimUser, params: Params): TagJson {
    if (!user.admin) throw forbidden();
    const name = checkName(params.get('name') ?? '');
    if (this.tags.has(name)) throw validationError({ name: ['Tag with this Name already exists.'] });
    const definition = params.get('definition') ?? '';
    if (definition.trim() !== '') throw validationError({ definition: [NO_DEFINITIONS] });
    const tag: TagRecord = { name, comment: params.get('comment') ?? '', definition, kernelOpts: params.get('kernel_opts') ?? '' };
    this.tags.set(name, tag);
    return tagJson(tag);
  }

  // PUT /tags/{name}/: name, comment, definition, kernel_opts; a rename follows onto the nodes.
  update(user: SimUser, name: string, params: Params, tagged: readonly Tagged[]): TagJson {
    if (!user.admin) throw forbidden();
    const tag = this.get(name);
    const newName = params.get('name');
    if (newName !== undefined && newName !== name) {
      checkName(newName);
      if (this.tags.has(newName)) throw validationError({ name: ['Tag with this Name already exists.'] });
    }
    const definition = params.get('definition');
    if (definition !== undefined && definition.trim() !== '' && definition !== tag.definition) throw validationError({ definition: [NO_DEFINITIONS] });
    const comment = params.get('comment');
    if (comment !== undefined) tag.comment = comment;
    const kernelOpts = params.get('kernel_opts');
    if (kernelOpts !== undefined) tag.kernelOpts = kernelOpts;
    if (newName !== undefined && newName !== name) {
      this.tags.delete(name);
      tag.name = newName;
      this.tags.set(newName, tag);
      for (const node of tagged) node.tags = node.tags.map((t) => (t === name ? newName : t));
    }
    return tagJson(tag);
  }

  // DELETE /tags/{name}/: the nodes lose it.
  remove(user: SimUser, name: string, tagged: readonly Tagged[]): void {
    if (!user.admin) throw forbidden();
    this.get(name);
    this.tags.delete(name);
    for (const node of tagged) node.tags = node.tags.filter((t) => t !== name);
  }

  // POST /tags/{name}/ op=rebuild: manual tags have nothing to rebuild.
  rebuild(user: SimUser, name: string): { rebuilding: string } {
    if (!user.admin) throw forbidden();
    return { rebuilding: this.get(name).name };
  }

  /** The tag must exist (404 otherwise); GET op=machines / nodes / devices then filter by it. */
  check(name: string): string {
    return this.get(name).name;
  }

  // POST /tags/{name}/op-update_nodes: add=<system_id>&remove=<system_id>, each repeatable.
  updateNodes(user: SimUser, name: string, params: Params, find: (systemId: string) => Tagged | undefined): { added: number; removed: number } {
    if (!user.admin) throw forbidden();
    const tag = this.get(name);
    const definition = params.get('definition');
    if (definition !== undefined && definition !== tag.definition) {
      throw conflict(`Definition supplied '${definition}' doesn't match current definition '${tag.definition}'`);
    }
    const machines = (key: string) => [...new Set(params.getAll(key))].map(find).filter((m): m is Tagged => m !== undefined);
    const toAdd = machines('add');
    for (const m of toAdd) if (!m.tags.includes(name)) m.tags.push(name);
    const toRemove = machines('remove');
    for (const m of toRemove) m.tags = m.tags.filter((t) => t !== name);
    return { added: toAdd.length, removed: toRemove.length };
  }

  private get(name: string): TagRecord {
    const tag = this.tags.get(name);
    if (!tag) throw notFound('Tag');
    return tag;
  }
}

function checkName(name: string): string {
  if (name === '') throw validationError({ name: ['This field is required.'] });
  if (name.length > 256) throw validationError({ name: [`Ensure this value has at most 256 characters (it has ${name.length}).`] });
  if (!TAG_NAME.test(name)) throw validationError({ name: ['Enter a valid value.'] });
  return name;
}
