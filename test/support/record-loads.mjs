// `node --import ./test/support/record-loads.mjs ...`: appends the URL of every module the
// loader loads to the file RECORD_LOADS_FILE names, one per line, from the loader's own thread
// as each load happens (so nothing is lost when the process exits).
import { register } from 'node:module';

const file = process.env.RECORD_LOADS_FILE;
if (!file) throw new Error('record-loads: set RECORD_LOADS_FILE');
register(`data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
`)}`, { data: { file } });
