// The walls of DESIGN.md are enforced by eslint.config.js, not hoped for: each probe below breaches
// one wall from inside the tree (or stays inside it, as a control), and `npm run check` must say so
// with the wall's own message, which tells the author what to do instead.
import test from 'ava';
import { ESLint, type Linter } from 'eslint';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RULE = '@typescript-eslint/no-restricted-imports';
const SYNTAX = 'no-restricted-syntax';
const LINES = 'max-lines-per-function';
const CHECKED = new Set([RULE, SYNTAX, LINES]);

// A function of `lines` lines as eslint counts them, from its signature to its closing brace;
// the blank line and the comment inside are not counted (skipBlankLines, skipComments).
function functionOf(lines: number): string {
  const adds = Array.from({ length: lines - 4 }, (_, k) => `  total += ${k};`);
  return ['export function probe(): number {', '  let total = 0;', '', '  // not a line', ...adds, '  return total;', '}', ''].join('\n');
}

interface Probe {
  /** Folder under the project root the probe file is written to. */
  readonly dir: string;
  readonly code: string;
  /** [rule, a distinctive part of the wall's message], one per expected report; [] = must pass. */
  readonly expect: readonly (readonly [string, string])[];
}

const PROBES: Record<string, Probe> = {
  'machines import only api': {
    dir: 'src/machines',
    code: "import { createFixtureProvisioner } from '../adapters/fixture/index.ts';\nexport const probe = createFixtureProvisioner;\n",
    expect: [[RULE, 'machines are pure: import only src/api']],
  },
  'machines may import api and their own folder': {
    dir: 'src/machines/bmh',
    code: "import type { BareMetalHost } from '../../api/index.ts';\nimport type { MachineLogic } from '../logic.ts';\nexport type Probe = [BareMetalHost, MachineLogic<never, never, never, never>];\n",
    expect: [],
  },
  'api imports nothing of ours': {
    dir: 'src/api/bmh',
    code: "import { shardBehavior } from '../../actors/shard/index.ts';\nexport const probe = shardBehavior;\n",
    expect: [[RULE, 'src/api imports nothing of ours']],
  },
  'sim never imports adapters': {
    dir: 'src/sim/maas',
    code: "import { createMaasClient } from '../../adapters/maas/client/index.ts';\nexport const probe = createMaasClient;\n",
    expect: [[RULE, 'src/sim shares no code with the clients it answers']],
  },
  'sim imports nothing else of ours': {
    dir: 'src/sim/maas',
    code: "import type { Clock } from '../../ports/index.ts';\nexport type Probe = Clock;\n",
    expect: [[RULE, 'src/sim stands alone']],
  },
  'security imports only bus, ports and api': {
    dir: 'src/security',
    code: "import { startNode } from '../node/index.ts';\nexport const probe = startNode;\n",
    expect: [[RULE, 'src/security (keys, signed requests, the allow-list, the audit) sits beside the bus']],
  },
  'the dashboard sees the fleet as a client does': {
    dir: 'src/ui',
    code: "import { systemClock } from '../actors/runtime/index.ts';\nexport const probe = systemClock;\n",
    expect: [[RULE, 'The dashboard sees the fleet only as any client does']],
  },
  'ports import only api': {
    dir: 'src/ports',
    code: "import { MemoryKvStore } from '../bus/memory-kv.ts';\nexport const probe = MemoryKvStore;\n",
    expect: [[RULE, 'ports are the interfaces the engine drives: import only src/api']],
  },
  'ports name machine types but run no machine code': {
    dir: 'src/ports',
    code: "import type { CallArgs } from '../machines/bmh/index.ts';\nimport { DEFAULT_MACHINE_CONFIG } from '../machines/bmh/index.ts';\nexport type Probe = CallArgs;\nexport const probe = DEFAULT_MACHINE_CONFIG;\n",
    expect: [[RULE, 'use `import type`, never machine code']],
  },
  'bus imports only ports and api': {
    dir: 'src/bus',
    code: "import { systemClock } from '../actors/runtime/index.ts';\nexport const probe = systemClock;\n",
    expect: [[RULE, 'bus implements ports: import only src/ports and src/api']],
  },
  'actors do not import adapters': {
    dir: 'src/actors/capacity',
    code: "import { createFixtureProvisioner } from '../../adapters/fixture/index.ts';\nexport const probe = createFixtureProvisioner;\n",
    expect: [[RULE, 'reaches the outside only through src/ports']],
  },
  'the shard imports no kind': {
    dir: 'src/actors/shard',
    code: "import { hostBinding } from '../host/index.ts';\nimport type { MaasRouter } from '../maas/index.ts';\nexport const probe = hostBinding;\nexport type Probe = MaasRouter;\n",
    expect: [[RULE, 'The shard knows no kind'], [RULE, 'The shard knows no kind']],
  },
  'the shard still reaches the outside only through ports': {
    dir: 'src/actors/shard',
    code: "import { createFixtureProvisioner } from '../../adapters/fixture/index.ts';\nimport { ask } from '../runtime/index.ts';\nexport const probe = [createFixtureProvisioner, ask];\n",
    expect: [[RULE, 'reaches the outside only through src/ports']],
  },
  'cluster does not import node': {
    dir: 'src/cluster/introspect',
    code: "import { startNode } from '../../node/index.ts';\nexport const probe = startNode;\n",
    expect: [[RULE, 'reaches the outside only through src/ports']],
  },
  'node does not import cli': {
    dir: 'src/node',
    code: "import { CliError } from '../cli/cli-error.ts';\nexport const probe = CliError;\n",
    expect: [[RULE, 'src/node is started by src/cli, never the reverse']],
  },
  'adapters do not import sim': {
    dir: 'src/adapters/maas',
    code: "import { startMaasSim } from '../../sim/maas/index.ts';\nexport const probe = startMaasSim;\n",
    expect: [[RULE, 'adapters share no code with the simulators']],
  },
  'plugin imports only ports, machines and api': {
    dir: 'src/plugin',
    code: "import { startSystem } from '../actors/runtime/index.ts';\nexport const probe = startSystem;\n",
    expect: [[RULE, 'the plugin contract (metalfleet/plugin)']],
  },
  'src never imports test or bench': {
    dir: 'src/cli',
    code: "import { waitFor } from '../../test/support/wait.ts';\nexport const probe = waitFor;\n",
    expect: [[RULE, 'src/ never imports test/, bench/, scripts/ or bin/']],
  },
  'nothing below cli reads the environment or flags': {
    dir: 'src/cluster',
    code: "export const probe = [process.env.METALFLEET_SHARDS, process.argv[2], process['env']];\nconst { env } = process;\nexport const probe2 = env;\n",
    expect: [[SYNTAX, 'Read flags and the environment only in src/cli'], [SYNTAX, 'Read flags and the environment only in src/cli'], [SYNTAX, 'Read flags and the environment only in src/cli'], [SYNTAX, 'Read flags and the environment only in src/cli']],
  },
  'cli reaches the engine through node': {
    dir: 'src/cli/demo',
    code: "import { systemClock } from '../../actors/runtime/index.ts';\nexport const probe = systemClock;\n",
    expect: [[RULE, 'cli starts and reads the engine through src/node']],
  },
  'cli reads the environment and imports the layers below': {
    dir: 'src/cli',
    code: "import { startNode } from '../node/index.ts';\nexport const probe = [process.env.METALFLEET_SHARDS, process.argv[2], startNode];\n",
    expect: [],
  },
  // Issue 29: no function in src/ over 150 lines, wherever it is (not only src/actors/capacity).
  'no function in src is over 150 lines': {
    dir: 'src/node',
    code: functionOf(151),
    expect: [[LINES, 'too many lines (151). Maximum allowed is 150']],
  },
  'a function of 150 lines in src passes': {
    dir: 'src/node',
    code: functionOf(150),
    expect: [],
  },
};

const reports = new Map<string, Linter.LintMessage[]>();

test.before(async () => {
  const files = new Map<string, string>();
  let i = 0;
  for (const [name, probe] of Object.entries(PROBES)) {
    const file = join(ROOT, probe.dir, `__wall_probe_${process.pid}_${i++}__.ts`);
    files.set(file, name);
  }
  try {
    for (const [file, name] of files) await writeFile(file, PROBES[name]!.code, { flag: 'wx' });
    const eslint = new ESLint({ cwd: ROOT });
    for (const result of await eslint.lintFiles([...files.keys()])) {
      reports.set(files.get(result.filePath)!, result.messages);
    }
  } finally {
    // Never leave a probe in the tree: another engineer's `npm run check` would fail on it.
    await Promise.all([...files.keys()].map((file) => rm(file, { force: true })));
  }
});

for (const [name, probe] of Object.entries(PROBES)) {
  test(`walls - ${name}`, (t) => {
    const messages = reports.get(name);
    if (!messages) return t.fail('the probe was not linted');
    const walls = messages.filter((m) => m.ruleId !== null && CHECKED.has(m.ruleId));
    t.is(walls.length, probe.expect.length, walls.map((m) => `${m.ruleId}: ${m.message}`).join('\n'));
    probe.expect.forEach(([rule, text], k) => {
      t.is(walls[k]?.ruleId, rule);
      t.true(walls[k]?.message.includes(text), walls[k]?.message);
    });
    // A probe is valid code otherwise, so a wall is the only reason it fails.
    t.deepEqual(messages.filter((m) => m.ruleId === null || !CHECKED.has(m.ruleId)).map((m) => `${m.ruleId}: ${m.message}`), []);
  });
}
