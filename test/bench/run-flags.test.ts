// `npm run bench -- NAME --flag bad`: a bad flag is one line naming it and exit 2, as the CLI's
// flags are, never a stack trace through bench/run.ts; nothing is started first.
import { execFile } from 'node:child_process';
import test from 'ava';
import { ROOT } from '../cli/run.ts';

function bench(...args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import=tsx', 'bench/run.ts', ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

test('bench run - a bad flag value is one line naming the flag, exit 2, no stack trace', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['scale', '--hosts', 'abc'], /^bench scale: --hosts: expected a number >= 0, got "abc"$/],
    [['scale', '--hosts='], /^bench scale: --hosts: expected a number >= 0, got ""$/],
    [['scale', '--limit', '0'], /^bench scale: --limit: scale measures against the slots, so it needs a limit of at least 1$/],
    [['failover', '--kill', 'everything'], /^bench failover: --kill: expected "node" or "broker", got "everything"$/],
    [['actor-turns', '--actors', 'abc'], /^bench actor-turns: --actors: expected a number >= 0, got "abc"$/],
  ];
  for (const [args, message] of cases) {
    const r = await bench(...args);
    t.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr.trim(), message, args.join(' '));
    t.notRegex(r.stderr, /\n\s+at /, `${args.join(' ')}: no stack`);
    t.is(r.stdout, '', args.join(' '));
  }
});
