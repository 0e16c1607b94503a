// Builds maasflow (the Go files here) with Debian's Go and gomaasapi, in GOPATH mode so nothing is
// fetched. The binary is kept under node_modules/.cache keyed by the source and the Go version,
// so only the first run after a change pays the ~6 s build.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
const GOPATH = '/usr/share/gocode';
const GOMAASAPI = join(GOPATH, 'src/github.com/juju/gomaasapi/controller.go');
// MAASFLOW_GO names another go binary (or a missing one, to see the test fail under CI=true).
const GO = process.env.MAASFLOW_GO ?? 'go';

const GO_ENV = {
  ...process.env,
  GO111MODULE: 'off',
  GOPATH,
  GOFLAGS: '',
  GOCACHE: join(tmpdir(), 'metalfleet-maasflow-gocache'),
};

/** Why the Go client cannot be built here, or null when it can. */
export async function goMissing(): Promise<string | null> {
  try {
    await run(GO, ['version'], { env: GO_ENV });
  } catch {
    return `${GO} is not on PATH (bash scripts/go-maas-install.sh installs golang-go)`;
  }
  if (!existsSync(GOMAASAPI)) return `${GOMAASAPI} is missing (bash scripts/go-maas-install.sh installs golang-github-juju-gomaasapi-dev)`;
  return null;
}

// One build per test process: tests of one file that start together share it.
let building: Promise<string> | null = null;

/** The path of a maasflow binary built from the Go files as they are now. */
export function buildMaasflow(): Promise<string> {
  building ??= build();
  building.catch(() => {
    building = null;
  });
  return building;
}

async function build(): Promise<string> {
  const { stdout: version } = await run(GO, ['version'], { env: GO_ENV });
  const hash = createHash('sha256').update(version);
  const sources = (await readdir(HERE)).filter((name) => name.endsWith('.go')).sort();
  for (const name of sources) hash.update(name).update(await readFile(join(HERE, name)));
  const key = hash.digest('hex').slice(0, 16);
  const dir = join(ROOT, 'node_modules', '.cache', 'metalfleet-maasflow');
  const binary = join(dir, `maasflow-${key}`);
  if (existsSync(binary)) return binary;
  await mkdir(dir, { recursive: true });
  // Build beside the final name and rename: two test processes building at once both end well.
  // Named by process and at random: two builds of one process once shared it, and the second rename failed.
  const partial = `${binary}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // GOPATH mode builds the package in the current folder: every .go file here.
    await run(GO, ['build', '-o', partial, '.'], { env: GO_ENV, cwd: HERE, timeout: 180_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`go build in ${HERE} failed: ${e.stderr?.trim() || e.message}`, { cause: err });
  }
  await rename(partial, binary);
  // Binaries of earlier sources are of no further use.
  for (const name of await readdir(dir)) {
    if (name.startsWith('maasflow-') && join(dir, name) !== binary && !name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
  }
  return binary;
}
