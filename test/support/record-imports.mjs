/* global setTimeout */
// Imports one module in this fresh process and prints, as one JSON line, every module URL the
// loader loaded for it: `node --import=tsx test/support/record-imports.mjs SPECIFIER`.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const specifier = process.argv[2];
const { port1, port2 } = new MessageChannel();
const loaded = [];
port1.on('message', (url) => loaded.push(url));
register(`data:text/javascript,${encodeURIComponent(`
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }
`)}`, { data: { port: port2 }, transferList: [port2] });

const mod = await import(specifier);
// The hooks run on their own thread: let their last messages arrive before reading them.
await new Promise((resolve) => setTimeout(resolve, 100));
port1.close();
process.stdout.write(`${JSON.stringify({ loaded, exports: Object.keys(mod).sort() })}\n`);
