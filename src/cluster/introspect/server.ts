// Every node answers introspection on `<cluster>.introspect.<node>.<verb>`, one subscription per
// verb and no queue group: a client asks the nodes it wants by name. Replies are checked against
// their schema before they leave, so a bug here is an `internal` error, never a malformed reply.
import type { IntrospectionSource } from './source.ts';
import type { Reply, RpcService, Subjects } from '../../bus/index.ts';
import { fail, ok, serve, subjects as defaultSubjects } from '../../bus/index.ts';
import type { IntrospectVerb } from '../../bus/messages/introspect.ts';
import { INTROSPECT, INTROSPECT_VERBS } from '../../bus/messages/introspect.ts';
import type { Transport } from '../../ports/index.ts';
import { METALFLEET_VERSION } from './source.ts';
import { serveDiscovery } from './discovery.ts';
import { pageBudget, pageBy, pageOf, pageOfHosts } from './host-pages.ts';

export interface IntrospectionServerOptions {
  /** The name this node answers under (a subject token); the embedded node uses 'embedded'. */
  readonly node: string;
  readonly subjects?: Subjects;
  /** Reported to service discovery; default the package version. */
  readonly version?: string;
}

export interface IntrospectionServer {
  /** This node's instance id in service discovery ($SRV.*.metalfleet.<id>). */
  readonly discoveryId: string;
  /** Stops answering; requests already taken get their reply. The source stays open (its owner closes it). */
  close(): Promise<void>;
}

export function serveIntrospection(transport: Transport, source: IntrospectionSource, options: IntrospectionServerOptions): IntrospectionServer {
  const subs = options.subjects ?? defaultSubjects();
  const node = options.node;
  if (!/^[^\s.*>]+$/.test(node)) throw new RangeError(`introspection: node name "${node}" must be one subject token (no ".", "*", ">" or spaces)`);

  const answer = async (verb: IntrospectVerb, req: unknown): Promise<Reply<unknown>> => {
    let value: unknown;
    switch (verb) {
      case 'info': value = { node, ...(await source.info()) }; break;
      case 'hosts': {
        const request = INTROSPECT.hosts.request.parse(req);
        value = { node, ...pageOfHosts(await source.hosts(request), request.after, pageBudget(transport.maxPayload)) };
        break;
      }
      case 'actors': {
        // Paged by path, as hosts by key: a node of 10,000 hosts has 10,000 host actors.
        const request = INTROSPECT.actors.request.parse(req);
        const { rows, next } = pageBy(await source.actors(request.prefix !== undefined ? { prefix: request.prefix } : {}), (a) => a.path, request.after, pageBudget(transport.maxPayload));
        value = { node, actors: rows, ...(next === undefined ? {} : { next }) };
        break;
      }
      case 'shards': value = { node, shards: await source.shards() }; break;
      case 'capacity': value = { node, ...(await source.capacity()) }; break;
      case 'inspect': {
        const request = INTROSPECT.inspect.request.parse(req);
        const outcome = await source.inspect(request.host, request.kind, request.stored === true);
        if (!outcome.ok) return fail(outcome.kind, `${node}: ${outcome.message}`);
        value = { node, host: outcome.host };
        break;
      }
      case 'clusters': {
        const request = INTROSPECT.clusters.request.parse(req);
        const { rows, next } = pageOf(await source.clusters?.(request.storedShards) ?? [], request.after, pageBudget(transport.maxPayload));
        value = { node, clusters: rows, ...(next === undefined ? {} : { next }) };
        break;
      }
    }
    const checked = INTROSPECT[verb].reply.safeParse(value);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return fail('internal', `${node}: the ${verb} reply does not match its schema at ${issue?.path.map(String).join('.') ?? '?'}: ${issue?.message ?? ''}`);
    }
    return ok(checked.data);
  };

  const services: RpcService[] = INTROSPECT_VERBS.map((verb) =>
    serve(transport, subs.introspectVerb(node, verb), INTROSPECT[verb].request, (req) => answer(verb, req)));
  // `nats micro ls` and any NATS service client find the endpoints without knowing metalfleet.
  const discovery = serveDiscovery(transport, {
    version: options.version ?? METALFLEET_VERSION,
    description: `metalfleet node ${node}: introspection (MessagePack requests and replies)`,
    metadata: { node },
    endpoints: () => INTROSPECT_VERBS.map((verb, i) => ({ name: verb, subject: subs.introspectVerb(node, verb), stats: services[i]!.stats })),
  });

  let closing: Promise<void> | null = null;
  return {
    discoveryId: discovery.id,
    close() {
      closing ??= Promise.all([discovery.close(), ...services.map((s) => s.drain().catch(() => undefined))]).then(() => undefined);
      return closing;
    },
  };
}
