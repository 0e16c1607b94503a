import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The BMC Secret `lab/bmc` the manifest tests' hosts name; its password must never be echoed. */
export const LAB_BMC_SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: bmc
  namespace: lab
stringData:
  username: admin
  password: never-echo-me
`;

/** Writes `files` (name → text) into a new folder, runs `run` on it, then removes it. */
export async function withFiles(files: Record<string, string>, run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-manifests-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
