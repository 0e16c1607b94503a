// The Containerfile checked without a container engine: what it copies exists (and .dockerignore
// lets it in), its entry point is the package's bin, its ports and user are the manifests', the
// runtime stage holds everything the installed package runs, and that stage's tree, put together
// in a temporary folder the way the Containerfile does, runs `metalfleet`.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, cp, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { REPO, loadKustomization } from './kustomize.ts';
import type { KubeObject } from './kustomize.ts';

const run = promisify(execFile);

interface Instruction { readonly keyword: string; readonly args: string; readonly stage: Stage }
interface Stage { readonly name: string; readonly base: string; readonly instructions: Instruction[] }
interface Copy { readonly from: string | undefined; readonly sources: string[]; readonly dest: string; readonly stage: Stage }
interface Container { name: string; image?: string; command?: string[]; ports?: { containerPort: number }[] }
interface PackageJson { name: string; version: string; bin: Record<string, string>; files: string[]; scripts: Record<string, string> }

/** Instructions by stage, as BuildKit reads them: comments dropped, `\` continuations joined. */
function parseContainerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\\\n/g, ' ').split('\n');
  for (const line of logical.map((l) => l.trim()).filter((l) => l !== '')) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [, base = '', name = String(stages.length)] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      stages.push({ name, base, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    // ARG before the first FROM sets the base image; nothing else may come before it.
    if (!stage) {
      if (upper !== 'ARG') throw new Error(`Containerfile: ${keyword} before FROM`);
      continue;
    }
    stage.instructions.push({ keyword: upper, args, stage });
  }
  return stages;
}

function copiesOf(stage: Stage): Copy[] {
  return stage.instructions.filter((i) => i.keyword === 'COPY').map((i) => {
    const words = i.args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
    const paths = words.filter((w) => !w.startsWith('--'));
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '', stage };
  });
}

const lastArg = (stage: Stage, keyword: string): string | undefined => stage.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
const runs = (stage: Stage): string[] => stage.instructions.filter((i) => i.keyword === 'RUN').flatMap((i) => i.args.split('&&').map((c) => c.trim()));
const execForm = (args: string | undefined): string[] => (args === undefined ? [] : JSON.parse(args) as string[]);
const workdir = (stage: Stage): string => lastArg(stage, 'WORKDIR') ?? '/';

/** .dockerignore as Docker reads it: the last pattern matching a path or one of its parents decides. */
function ignoredBy(rules: readonly string[]): (path: string) => boolean {
  const compiled = rules.map((raw) => {
    const negated = raw.startsWith('!');
    const glob = posix.normalize((negated ? raw.slice(1) : raw).replace(/\/+$/, ''));
    const source = glob.split('**').map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')).join('.*');
    return { negated, regex: new RegExp(`^${source.replace(/^\.\*\//, '(?:.*/)?')}$`) };
  });
  return (path) => {
    const prefixes = path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const rule of compiled) if (prefixes.some((p) => rule.regex.test(p))) ignored = !rule.negated;
    return ignored;
  };
}

async function filesIn(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const containerfile = readFile(join(REPO, 'Containerfile'), 'utf8');
const stages = containerfile.then(parseContainerfile);
const pkg = readFile(join(REPO, 'package.json'), 'utf8').then((text) => JSON.parse(text) as PackageJson);
const dockerignore = readFile(join(REPO, '.dockerignore'), 'utf8').then((text) => ignoredBy(text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'))));

async function runtime(): Promise<Stage> {
  const stage = (await stages).at(-1);
  if (!stage) throw new Error('Containerfile has no FROM');
  return stage;
}

/** The containers deploy/ runs from the metalfleet image. */
async function metalfleetContainers(): Promise<{ source: string; container: Container }[]> {
  const { objects } = await loadKustomization();
  return objects.flatMap(({ source, object }: { source: string; object: KubeObject }) => {
    const pod = (object.spec as { template?: { spec?: { containers?: Container[] } } } | undefined)?.template?.spec;
    return (pod?.containers ?? []).filter((c) => c.image?.includes('/metalfleet:')).map((container) => ({ source, container }));
  });
}

test('container - a build stage runs npm ci and npm run build; the runtime stage installs production dependencies only', async (t) => {
  const all = await stages;
  t.is(all.length, 2, 'build and runtime');
  const [build, final] = all;
  if (!build || !final) return;
  t.is(final.base, build.base, 'both stages on the same Node image');
  t.regex(await containerfile, /^ARG NODE_IMAGE=\S+\/node:20[-.]/m, 'the Node major the project runs on (engines, CI)');
  t.true(runs(build).some((c) => /^npm ci\b/.test(c)));
  t.true(runs(build).includes('npm run build'));
  const install = runs(final).filter((c) => /^npm ci\b/.test(c));
  t.is(install.length, 1);
  t.regex(install[0] ?? '', /--omit=dev/);
  // `prepare` runs `npm run build`, whose tools (tsc, tsx, esbuild) are dev dependencies.
  t.regex(install[0] ?? '', /--ignore-scripts/);
  t.truthy((await pkg).scripts.prepare, 'the reason for --ignore-scripts is still there');
  t.false(runs(final).some((c) => /npm (run|install|i)\b/.test(c)), 'nothing else installs or builds in the runtime stage');
});

test('container - every COPY source is in the build context and let in by .dockerignore, or made by an earlier stage', async (t) => {
  const ignored = await dockerignore;
  const all = await stages;
  const { compilerOptions } = JSON.parse((await readFile(join(REPO, 'tsconfig.build.json'), 'utf8')).replace(/^\s*\/\/.*$/gm, '')) as { compilerOptions: { outDir: string } };
  for (const stage of all) {
    for (const copy of copiesOf(stage)) {
      if (copy.from !== undefined) {
        const source = all.find((s) => s.name === copy.from);
        t.truthy(source && all.indexOf(source) < all.indexOf(stage), `COPY --from=${copy.from}: an earlier stage`);
        if (!source) continue;
        // What it takes is what that stage's `npm run build` writes: tsc's outDir under its WORKDIR.
        t.true(runs(source).includes('npm run build'), `stage ${source.name} builds`);
        t.deepEqual(copy.sources, [`${posix.join(workdir(source), compilerOptions.outDir)}/`], `COPY --from=${copy.from}`);
        continue;
      }
      for (const source of copy.sources) {
        const path = join(REPO, source);
        await t.notThrowsAsync(access(path), `COPY ${source}: in the repository`);
        const files = (await filesIn(path)).map((f) => relative(REPO, f)).filter((f) => !f.split('/').includes('node_modules'));
        t.true(files.length > 0, `COPY ${source}: has files`);
        const left = files.filter(ignored);
        t.deepEqual(left, [], `COPY ${source}: .dockerignore keeps these out`);
      }
    }
  }
  // What each stage makes for itself never comes from the checkout.
  for (const local of ['node_modules', 'node_modules/commander/package.json', 'dist', 'dist/cli/main.js', '.git', 'test/deploy/container.test.ts']) t.true(ignored(local), `${local} stays out of the context`);
});

test('container - the entry point is the package\'s bin, on PATH under the name the manifests run', async (t) => {
  const { bin } = await pkg;
  const final = await runtime();
  const [entry, ...rest] = execForm(lastArg(final, 'ENTRYPOINT'));
  t.deepEqual(rest, []);
  const target = bin[entry ?? ''];
  if (!target) return t.fail(`ENTRYPOINT ${entry ?? '?'} is not in package.json bin (${Object.keys(bin).join(', ')})`);
  // The link from a directory on the image's PATH to the bin file under WORKDIR.
  const link = runs(final).map((c) => /^ln -s (\S+) (\S+)$/.exec(c)).find((m) => m && posix.basename(m[2] ?? '') === entry);
  t.is(link?.[1], posix.join(workdir(final), target), 'the link points at the bin file in WORKDIR');
  t.is(posix.dirname(link?.[2] ?? ''), '/usr/local/bin', 'on the Node image\'s PATH');
  t.true(copiesOf(final).some((c) => c.from === undefined && c.sources.some((s) => target.startsWith(s.replace(/\/?$/, '/')) || s === target)), `${target} is copied`);
  t.true(runs(final).some((c) => c.startsWith('chmod 0755') && c.includes(target)), 'executable whatever mode the checkout has');
  t.regex((await readFile(join(REPO, target), 'utf8')).split('\n')[0] ?? '', /^#!\/usr\/bin\/env -S node\b/);
  const containers = await metalfleetContainers();
  t.true(containers.length >= 2);
  for (const { source, container } of containers) t.is(container.command?.[0], entry, `${source} ${container.name}: command`);
});

test('container - the tag it is built with is the image the manifests run, at the package\'s version', async (t) => {
  const { name, version } = await pkg;
  const text = await containerfile;
  const tag = /^#\s+(?:podman|docker) build -t (\S+) /m.exec(text)?.[1];
  t.is(tag, `ghcr.io/metalfleet/${name}:${version}`);
  t.regex(text, new RegExp(`org\\.opencontainers\\.image\\.version="${version.replace(/\./g, '\\.')}"`));
  for (const { source, container } of await metalfleetContainers()) t.is(container.image, tag, `${source} ${container.name}`);
});

test('container - it runs as the manifests\' non-root user', async (t) => {
  const user = lastArg(await runtime(), 'USER');
  const [uid, gid] = (user ?? '').split(':').map(Number);
  // Numeric: the kubelet can check runAsNonRoot only against a number.
  t.regex(user ?? '', /^\d+:\d+$/);
  t.not(uid, 0);
  t.not(gid, 0);
  const { objects } = await loadKustomization();
  for (const { source, object } of objects) {
    const pod = (object.spec as { template?: { spec?: { containers: Container[]; securityContext?: { runAsUser?: number; runAsGroup?: number } } } } | undefined)?.template?.spec;
    if (!pod?.containers.some((c) => c.image?.includes('/metalfleet:'))) continue;
    t.is(pod.securityContext?.runAsUser, uid, `${source}: runAsUser`);
    t.is(pod.securityContext?.runAsGroup, gid, `${source}: runAsGroup`);
  }
});

test('container - it EXPOSEs exactly the manifests\' container ports', async (t) => {
  const exposed = (await runtime()).instructions.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => i.args.split(/\s+/)).map((p) => Number(p.replace(/\/tcp$/, '')));
  const declared = (await metalfleetContainers()).flatMap(({ container }) => (container.ports ?? []).map((p) => p.containerPort));
  t.true(declared.length >= 2);
  t.deepEqual([...new Set(exposed)].sort(), [...new Set(declared)].sort());
});

// In the package (npm pack) but read by nobody at run time: documentation and the manifests.
const NOT_AT_RUNTIME = ['README.md', 'CHANGELOG.md', 'deploy/'];

test('container - the runtime stage holds every packed file the installed package runs', async (t) => {
  // --ignore-scripts: `prepare` would rebuild dist/ in a checkout others are working in.
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  const packed = ((JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files ?? []).map((f) => f.path);
  t.true(packed.includes('package.json') && packed.includes((await pkg).bin.metalfleet ?? '?'));
  const copied = copiesOf(await runtime()).flatMap((c) => (c.from === undefined ? c.sources : [c.dest]));
  const inImage = (path: string): boolean => copied.some((c) => (c.endsWith('/') ? path.startsWith(c) : path === c));
  const missing = packed.filter((p) => !inImage(p) && !NOT_AT_RUNTIME.some((n) => (n.endsWith('/') ? p.startsWith(n) : p === n)));
  t.deepEqual(missing, [], 'packed files the image leaves out');
  // package.json is read at run time: "type": "module" makes bin/metalfleet.js an ES module.
  t.true(inImage('package.json'));
});

/** Bare specifiers (packages) imported by the modules reachable from `entry`, with an importer each. */
async function packagesReachedFrom(entry: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const code = await readFile(file, 'utf8');
    for (const [, spec = ''] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"\s]+)['"]/g)) {
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
      else if (!isBuiltin(spec) && /^(@[\w.-]+\/)?[\w.-]+(\/[\w./-]*)?$/.test(spec) && !found.has(spec)) found.set(spec, relative(dirname(entry), file));
    }
  }
  return found;
}

// Reachable in dist/ but loaded only when the sources run (METALFLEET_FROM_SOURCE, src/ui/assets.ts).
const SOURCE_ONLY: Record<string, string> = { esbuild: '../ui/bundle.js' };

test('container - the runtime stage\'s tree, put together without an engine, runs metalfleet', async (t) => {
  const final = await runtime();
  const root = await mkdtemp(join(tmpdir(), 'metalfleet-image-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const ignored = await dockerignore;
  const dir = join(root, workdir(final).replace(/^\//, ''));
  await mkdir(dir, { recursive: true });
  const env: NodeJS.ProcessEnv = { PATH: `${join(root, 'usr/local/bin')}:${process.env.PATH ?? ''}`, HOME: root, NODE_ENV: 'production', npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? root, '.npm') };
  // In Containerfile order: the npm ci step sees only what the COPYs before it brought.
  for (const instruction of final.instructions) {
    if (instruction.keyword === 'COPY') {
      const [copy] = copiesOf({ ...final, instructions: [instruction] });
      if (!copy) continue;
      if (copy.from !== undefined) {
        // The build stage's dist/ is this checkout's `npm run build` output (npm ci builds it).
        const built = join(REPO, 'dist');
        if (await access(join(built, 'cli/main.js')).then(() => true, () => false)) {
          await cp(built, join(dir, copy.dest), { recursive: true });
        } else {
          await run('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', join(dir, copy.dest)], { cwd: REPO, timeout: 120_000 });
        }
        continue;
      }
      for (const source of copy.sources) {
        const target = copy.sources.length > 1 || (copy.dest.endsWith('/') && !source.endsWith('/')) ? join(dir, copy.dest, posix.basename(source)) : join(dir, copy.dest);
        await cp(join(REPO, source), target, { recursive: true, filter: (from) => from === join(REPO, source) || !ignored(relative(REPO, from)) });
      }
    }
    if (instruction.keyword !== 'RUN') continue;
    // Only the install and the link: `npm cache clean` would empty this machine's cache, and the
    // chmod is checked above (the checkout's bin is executable).
    for (const command of instruction.args.split('&&').map((c) => c.trim())) {
      if (/^npm ci\b/.test(command)) {
        // The same install, from the local npm cache where it can.
        await run('npm', [...command.split(/\s+/).slice(1), '--prefer-offline'], { cwd: dir, env, timeout: 120_000 });
      } else if (command.startsWith('ln -s ')) {
        const [, from = '', to = ''] = command.split(/\s+/).slice(1);
        await mkdir(join(root, dirname(to)), { recursive: true });
        await symlink(join(root, from), join(root, to));
      }
    }
  }
  // Only production dependencies went in: no dev tool could be what makes it run.
  await t.throwsAsync(access(join(dir, 'node_modules/tsx')));
  await t.throwsAsync(access(join(dir, 'node_modules/typescript')));
  await access(join(root, 'usr/local/bin/metalfleet'), constants.X_OK);

  // Every package the installed code imports is installed.
  const reached = await packagesReachedFrom(join(dir, 'dist/cli/main.js'));
  t.true(reached.has('commander') && reached.has('@kubernetes/client-node'), 'the walk follows the commands\' dynamic imports');
  const resolver = join(dir, 'resolve-check.mjs');
  const wanted = [...reached.keys()].filter((spec) => SOURCE_ONLY[spec] === undefined);
  for (const [spec, importer] of Object.entries(SOURCE_ONLY)) t.true([undefined, importer].includes(reached.get(spec)), `${spec} is imported only where the sources run`);
  await writeFile(resolver, `for (const s of ${JSON.stringify(wanted)}) import.meta.resolve(s);\n`);
  await t.notThrowsAsync(run(process.execPath, [resolver], { cwd: dir, env, timeout: 30_000 }), 'every imported package resolves in the runtime tree');

  // The command as the manifests run it (`metalfleet` on PATH), with the two subcommands they use,
  // each of which loads its whole module graph.
  for (const args of [['--help'], ['node', '--help'], ['webhook', '--help']]) {
    const { stdout } = await run('metalfleet', args, { cwd: root, env, timeout: 30_000 });
    t.regex(stdout, /^Usage: metalfleet/m, `metalfleet ${args.join(' ')}`);
  }
  const { stdout } = await run('metalfleet', ['node', '--help'], { cwd: root, env, timeout: 30_000 });
  t.regex(stdout, /--health-bind/);
});
