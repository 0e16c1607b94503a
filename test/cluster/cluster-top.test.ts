// `metalfleet top` in a real pseudo-terminal (tmux, 80x24) against two `metalfleet node`
// processes: frames drawn, keys taken, and a clean exit on q.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { toolAvailable } from '../support/tools.ts';
import { waitUntil } from '../support/wait.ts';
import { ROOT } from '../cli/run.ts';

// Without tmux or nats-server (outside CI) the test is skipped, and `npm test` names it.
const run = toolAvailable('tmux') && natsServerInstalled() ? test : test.skip;

function tmux(socket: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // A private server (-L): our session never mixes with anyone else's tmux.
    execFile('tmux', ['-L', socket, ...args], { timeout: 10_000 }, (err, stdout, stderr) => (err ? reject(new Error(`tmux ${args[0]}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

run('top - draws 80x24 frames with the header and state counts, takes s and /, and q exits 0 restoring the terminal', async (t) => {
  await withCluster(t, { shards: 8, limit: 3, fixture: { latencyMs: 5, demoBehaviours: false } }, async (c) => {
    const socket = `mf-top-${process.pid}`;
    const dir = await mkdtemp(join(tmpdir(), 'metalfleet-top-'));
    const exitFile = join(dir, 'exit');
    try {
      await Promise.all([c.startNode('a'), c.startNode('b')]);
      const keys = await c.applyHosts(6);
      await waitUntil(async () => [...(await c.statesOf(keys)).values()].every((s) => s === 'provisioned'), 60_000, 'hosts provisioned');

      const command = `cd ${ROOT} && ${process.execPath} bin/metalfleet.js top --nats ${c.nats.url} --interval 500; echo $? > ${exitFile}; sleep 60`;
      await tmux(socket, 'new-session', '-d', '-s', 'top', '-x', '80', '-y', '24', command);
      const capture = (): Promise<string> => tmux(socket, 'capture-pane', '-p', '-t', 'top');

      let first = '';
      await waitUntil(async () => {
        first = await capture();
        return /metalfleet top/.test(first) && /provisioned 6/.test(first);
      }, 90_000, 'a frame with the state counts');
      t.log(`\n${first}`);
      const check = (frame: string): void => {
        const lines = frame.replace(/\n$/, '').split('\n');
        t.true(lines.length <= 24, `${lines.length} lines`);
        for (const line of lines) t.true([...line].length <= 80, line);
        // On a loaded machine a refresh may miss an answer: the header says so, and that is fine here.
        t.regex(lines[0]!, /^metalfleet top {2}nodes 2( \([12] missing\))? {2}hosts \d+ /);
        t.regex(frame, /STATES {2}provisioned 6/);
        t.regex(frame, /CAPACITY/);
        t.regex(frame, /MAILBOXES/);
        t.regex(frame, /q quit/);
      };
      check(first);
      // Refreshed: the clock in the header moves on.
      const clock = (frame: string): string => /(\d\d:\d\d:\d\d) UTC/.exec(frame)?.[1] ?? '';
      let second = '';
      await waitUntil(async () => {
        second = await capture();
        return clock(second) !== '' && clock(second) !== clock(first);
      }, 30_000, 'a second frame');
      check(second);

      await tmux(socket, 'send-keys', '-t', 'top', 's');
      await waitUntil(async () => /s sort \(high\)/.test(await capture()), 30_000, 'the sort to change');
      await tmux(socket, 'send-keys', '-t', 'top', '/', 'capacity');
      await waitUntil(async () => /^\/capacity_/m.test(await capture()), 30_000, 'the filter being typed');
      await tmux(socket, 'send-keys', '-t', 'top', 'Enter');
      let filtered = '';
      await waitUntil(async () => /filter \(capacity\)/.test(filtered = await capture()), 30_000, 'the filter applied');
      t.false(/host-\d/.test(filtered.split('MAILBOXES')[1]?.split('RECENT ERRORS')[0] ?? ''), filtered);
      await tmux(socket, 'send-keys', '-t', 'top', 'Escape');
      await waitUntil(async () => !/filter \(/.test(await capture()), 30_000, 'the filter cleared');

      const terminal = async (): Promise<string> => (await tmux(socket, 'display-message', '-p', '-t', 'top', '#{alternate_on} #{cursor_flag}')).trim();
      t.is(await terminal(), '1 0', 'alternate screen on, cursor hidden while running');
      await tmux(socket, 'send-keys', '-t', 'top', 'q');
      await waitUntil(async () => (await readFile(exitFile, 'utf8').catch(() => '')).trim() !== '', 30_000, 'top to exit');
      t.is((await readFile(exitFile, 'utf8')).trim(), '0');
      t.is(await terminal(), '0 1', 'alternate screen left, cursor shown after q');
    } finally {
      await tmux(socket, 'kill-server').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
