// `metalfleet top` whose very first refresh fails (here a NATS server without JetStream, so the
// membership bucket cannot be read): the frame must say why, as `top --once` does, instead of
// "waiting for the first answer..." for as long as the operator watches.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { connectNats } from '../../src/bus/index.ts';
import { runTop, type TerminalIn, type TerminalOut } from '../../src/cli/introspect/index.ts';
import { freePort } from '../support/ironic.ts';
import { waitUntil } from '../support/wait.ts';

/** A nats-server with JetStream off, on a free port; a missing binary fails the test. */
async function natsWithoutJetStream(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'mf-top-nojs-'));
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { cwd: dir, stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) => child.once('error', reject));
  const listening = waitUntil(() => new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  }), 10_000, 'nats-server listening');
  await Promise.race([listening, failed]);
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

class FakeIn extends EventEmitter implements TerminalIn {
  readonly isTTY = true;
  setRawMode(): this { return this; }
  resume(): this { return this; }
  pause(): this { return this; }
  type(text: string): void { this.emit('data', text); }
}

class FakeOut extends EventEmitter implements TerminalOut {
  readonly isTTY = true;
  readonly columns = 100;
  readonly rows = 24;
  text = '';
  write(text: string): boolean {
    this.text += text;
    return true;
  }
  /** The last frame drawn (after the last cursor-home). */
  lastFrame(): string {
    // eslint-disable-next-line no-control-regex
    return (this.text.split('\u001b[H').at(-1) ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  }
}

test('introspect top - a failing first refresh is shown on the frame, not "waiting for the first answer" for ever', async (t) => {
  const nats = await natsWithoutJetStream();
  const transport = await connectNats({ servers: nats.url, name: 'introspect-top-test', maxReconnectAttempts: 1, reconnectTimeWaitMs: 200, timeoutMs: 5_000 });
  const input = new FakeIn();
  const output = new FakeOut();
  try {
    const running = runTop(transport, { timeoutMs: 1_000, intervalMs: 200, input, output });
    await waitUntil(() => /refresh failed/.test(output.lastFrame()), 15_000, 'a frame naming the failed refresh');
    const frame = output.lastFrame();
    t.log(`\n${frame}`);
    // The cause comes last in the message; the frame wraps it rather than cutting it off at the width.
    t.regex(frame.replace(/\s+/g, ' '), /! refresh failed: .*mf-members.*(no jetstream|jetstream is not enabled)/i);
    for (const line of frame.split('\r\n')) t.true([...line].length <= 100, line);
    t.notRegex(frame, /waiting for the first answer/);
    input.type('q');
    await running;
    t.true(output.text.endsWith('\u001b[?25h\u001b[?1049l'), 'the terminal is restored');
  } finally {
    await transport.close().catch(() => undefined);
    await nats.stop();
  }
});
