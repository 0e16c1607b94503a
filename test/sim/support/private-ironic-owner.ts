// A demo's backend in a process of its own, for the orphan tests: starts a private Ironic with a
// one-server virtual datacenter, prints where their files are as one JSON line, then waits to be
// killed (it never stops them itself).
import { startPrivateIronic } from '../../../src/cli/demo/private-ironic.ts';

const backend = await startPrivateIronic({ servers: 1 });
const ironicDir = /its files: (\S+)\)/.exec(backend.banner)?.[1] ?? '';
process.stdout.write(`${JSON.stringify({ url: backend.url, ironicDir, datacenterDir: backend.datacenter?.bootServer.root ?? '' })}\n`);
setInterval(() => undefined, 1 << 30);
