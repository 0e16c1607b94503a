// A node's introspection served on an in-memory bus, as the embedded mode serves it, with a
// client beside it: what the introspection and CLI view tests ask.
import { createMemoryBus } from '../../src/bus/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import type { Transport } from '../../src/ports/index.ts';

export interface EmbeddedIntrospection {
  readonly client: Transport;
  /** Stops the service, the source's sampling and both connections. */
  close(): Promise<void>;
}

export function serveEmbedded(source: IntrospectionSource, node = 'embedded'): EmbeddedIntrospection {
  const bus = createMemoryBus();
  const server = bus.connect(node);
  const client = bus.connect('cli');
  const service = serveIntrospection(server, source, { node });
  return {
    client,
    async close() {
      await service.close();
      source.close();
      await client.close();
      await server.close();
    },
  };
}
