// The load hook of register.mjs: a .ts file is transformed by esbuild as tsx would (the
// project's tsconfig options esbuild reads, ES module output), once per content: the output is
// kept under node_modules/.cache keyed by the source's bytes, esbuild's version and the options.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';

const root = new URL('../../../', import.meta.url);
const cacheDir = fileURLToPath(new URL('node_modules/.cache/metalfleet-test-ts/', root));
// esbuild reads these from tsconfigRaw; target ES2022 makes class fields define semantics.
const options = {
  loader: 'ts',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { target: 'ES2022', verbatimModuleSyntax: true, useDefineForClassFields: true } },
};
const { version } = JSON.parse(readFileSync(new URL('node_modules/esbuild/package.json', root), 'utf8'));
const salt = `${version}:${JSON.stringify(options)}`;
// Imported on the first miss only: a process whose modules are all cached never loads esbuild.
let esbuild = null;

async function transformed(path, source) {
  const key = createHash('sha256').update(salt).update('\0').update(path).update('\0').update(source).digest('hex');
  const cached = `${cacheDir}${key}.js`;
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    esbuild ??= import('esbuild');
    const { code } = (await esbuild).transformSync(source, { ...options, sourcefile: path });
    mkdirSync(cacheDir, { recursive: true });
    // Another test process may write the same entry at once: each renames its own whole file.
    const mine = `${cached}.${process.pid}.tmp`;
    writeFileSync(mine, code);
    renameSync(mine, cached);
    return code;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  return { format: 'module', source: await transformed(path, readFileSync(path, 'utf8')), shortCircuit: true };
}
