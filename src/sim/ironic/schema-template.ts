// Every private Ironic needs the same empty database; `ironic-dbsync create_schema` imports all of
// Ironic and runs its migrations, 3 s of CPU and up to 7 s on a busy 2-core machine, for each of
// the fifty-odd Ironics a test run starts. The first one builds the schema once per installed
// Ironic into a template beside the other temporary files; the rest copy that file.
import { spawnSync } from 'node:child_process';
import { copyFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { IronicRelease } from './version.ts';
import { formatRelease } from './version.ts';

/** Builds an empty schema into the file named by the configuration at confPath. */
export type CreateSchema = () => Promise<void>;

// The template belongs to one installed Ironic: its release and the dbsync script's change time
// (a package upgrade rewrites it), so an upgrade never hands an old schema to a new Ironic. Looked
// up once per process and folder: a test file that starts and empties several Ironics asks once.
const templatePaths = new Map<string, Promise<string | null>>();

function templatePath(release: IronicRelease, dir: string): Promise<string | null> {
  const key = `${dir}\0${formatRelease(release)}`;
  let path = templatePaths.get(key);
  if (path === undefined) {
    path = lookUpTemplatePath(release, dir);
    templatePaths.set(key, path);
  }
  return path;
}

async function lookUpTemplatePath(release: IronicRelease, dir: string): Promise<string | null> {
  const found = spawnSync('sh', ['-c', 'command -v ironic-dbsync'], { encoding: 'utf8' });
  const script = found.status === 0 ? found.stdout.trim() : '';
  if (script === '') return null;
  const changed = Math.round((await stat(script)).mtimeMs);
  return join(dir, `metalfleet-ironic-schema-${userInfo().uid}-${formatRelease(release)}-${changed}.db`);
}

/**
 * Puts an empty schema at dbPath: a copy of the template when there is one, else built by
 * `create` (into dbPath) and then kept as the template. Several test processes may build it at
 * once: each renames its own copy into place, and every copy is the same schema. `dir`: where
 * the template lives (the system's temporary folder).
 */
export async function schemaInto(dbPath: string, release: IronicRelease, create: CreateSchema, dir = tmpdir()): Promise<void> {
  const template = await templatePath(release, dir);
  if (template !== null) {
    try {
      await copyFile(template, dbPath);
      return;
    } catch {
      // no template yet: build one below
    }
  }
  await create();
  if (template === null) return;
  const mine = `${template}.${process.pid}.tmp`;
  try {
    await copyFile(dbPath, mine);
    await rename(mine, template);
  } catch {
    await rm(mine, { force: true });
  }
}
