import { conflict, forbidden, notFound, validationError } from './api-error.ts';
import type { MachineRecord } from './machine.ts';
import { API_PREFIX } from './machine-json.ts';
import type { SimUser } from './oauth.ts';
import type { Params } from './params.ts';

// Tags (src/maasserver/api/tags.py): the names allocate may ask for, and the manual
// POST /tags/{name}/op-update_nodes CAPMAAS uses for its maintenance tags (capmaas.md §3.2).

interface TagRecord {
  readonly name: string;
  comment: string;
  readonly definition: string;
  kernelOpts: string;
}

const TAG_NAME = /^[\w-]+$/;

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

  // POST /tags/ (superusers only)
  create(user: SimUser, params: Params): TagJson {
    if (!user.admin) throw forbidden();
    const name = params.get('name') ?? '';
    if (name === '') throw validationError({ name: ['This field is required.'] });
    if (!TAG_NAME.test(name)) throw validationError({ name: ['Invalid character in tag name'] });
    if (this.tags.has(name)) throw validationError({ name: ['Tag with this Name already exists.'] });
    const definition = params.get('definition') ?? '';
    // An XPath definition would need lshw data the simulator has not got.
    if (definition !== '') throw validationError({ definition: ['This simulator supports manual tags only (no definition).'] });
    const tag: TagRecord = { name, comment: params.get('comment') ?? '', definition, kernelOpts: params.get('kernel_opts') ?? '' };
    this.tags.set(name, tag);
    return tagJson(tag);
  }

  // POST /tags/{name}/op-update_nodes: add=<system_id>&remove=<system_id>, each repeatable.
  updateNodes(user: SimUser, name: string, params: Params, find: (systemId: string) => MachineRecord | undefined): { added: number; removed: number } {
    if (!user.admin) throw forbidden();
    const tag = this.get(name);
    const definition = params.get('definition');
    if (definition !== undefined && definition !== tag.definition) {
      throw conflict(`Definition supplied '${definition}' doesn't match current definition '${tag.definition}'`);
    }
    const machines = (key: string) => [...new Set(params.getAll(key))].map(find).filter((m): m is MachineRecord => m !== undefined);
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
