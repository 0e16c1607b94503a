// `metalfleet webhook`: the URL line it prints, a review served over HTTPS, a clean exit on SIGTERM
// and SIGINT, and flags it refuses.
import { spawn, type ChildProcess } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { metalfleet, ROOT } from '../cli/run.ts';
import { admissionReview, call, issue, makePki, review } from './support.ts';

type Exit = { code: number | null; signal: NodeJS.Signals | null };
type Running = { child: ChildProcess; lines: string[]; stderr: () => string; exited: Promise<Exit> };

function started(t: ExecutionContext, ...args: string[]): Running {
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'webhook', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    const parts = out.split('\n');
    out = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<Exit>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, stderr: () => err, exited };
}

// The first stdout line, or a failure when the process exits first or the deadline passes.
function firstLine(r: Running, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line after ${timeoutMs} ms: ${r.stderr()}`)), timeoutMs);
    const check = (): void => {
      if (r.lines.length === 0) return;
      clearTimeout(timer);
      resolve(r.lines[0]!);
    };
    r.child.stdout?.on('data', check);
    void r.exited.then(({ code }) => {
      clearTimeout(timer);
      if (r.lines.length > 0) resolve(r.lines[0]!);
      else reject(new Error(`exited ${code} before printing its URL: ${r.stderr()}`));
    });
    check();
  });
}

const badHost = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'worker-1', namespace: 'metal3' },
  spec: { online: false, disablePowerOff: true, bmc: { address: 'ipmi://192.0.2.21', credentialsName: 'c' } },
};

test('webhook cli - prints its URL as one JSON line, serves reviews over HTTPS and exits 0 on SIGTERM', async (t) => {
  const pki = await makePki(t);
  const files = await issue(pki, 'tls');
  const r = started(t, '--port', '0', '--host', '127.0.0.1', '--tls-cert', files.certFile, '--tls-key', files.keyFile);
  const { url } = JSON.parse(await firstLine(r)) as { url: string };
  t.regex(url, /^https:\/\/127\.0\.0\.1:\d+$/);

  t.is((await call(url, pki.ca, { method: 'GET', path: '/healthz' })).status, 200);
  const body = admissionReview('CREATE', badHost, null, 'cli-uid-1');
  const { response } = await review(url, pki.ca, body);
  t.is(response.uid, 'cli-uid-1');
  t.false(response.allowed);
  t.is(response.status?.message, 'BareMetalHost.metal3.io "worker-1" is invalid: spec.disablePowerOff: node can\'t simultaneously have online set to false and have power off disabled');

  r.child.kill('SIGTERM');
  t.deepEqual(await r.exited, { code: 0, signal: null });
  t.is(r.lines.length, 1, 'nothing else on stdout');
  // Logs are JSON lines on stderr: the certificate, then the verdict with who and what.
  const logs = r.stderr().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  t.like(logs.find((l) => l.msg === 'webhook certificate loaded'), { cert: files.certFile, subject: 'CN=metalfleet-webhook-tls' });
  t.like(logs.find((l) => l.msg === 'admission denied'), { uid: 'cli-uid-1', operation: 'CREATE', kind: 'BareMetalHost', namespace: 'metal3', name: 'worker-1', allowed: false });
  t.like(logs.find((l) => l.msg === 'webhook stopping'), { signal: 'SIGTERM' });
});

test('webhook cli - also stops cleanly on SIGINT', async (t) => {
  const pki = await makePki(t);
  const files = await issue(pki, 'tls');
  const r = started(t, '--port', '0', '--host', '127.0.0.1', '--tls-cert', files.certFile, '--tls-key', files.keyFile, '--log-level', 'warn');
  await firstLine(r);
  r.child.kill('SIGINT');
  t.deepEqual(await r.exited, { code: 0, signal: null });
  t.is(r.stderr(), '', 'nothing at warn');
});

test('webhook cli - bad flags are refused naming the flag', async (t) => {
  const pki = await makePki(t);
  const files = await issue(pki, 'tls');
  const other = await issue(pki, 'other');
  const tlsFlags = ['--tls-cert', files.certFile, '--tls-key', files.keyFile];

  const noCert = await metalfleet('webhook', '--tls-key', files.keyFile);
  t.not(noCert.code, 0);
  t.regex(noCert.stderr, /required option '--tls-cert <file>' not specified/);

  const cases: Array<[string[], RegExp]> = [
    [['--port', '70000', ...tlsFlags], /^metalfleet: --port: expected a port from 0 to 65535, got "70000"$/m],
    [['--port', 'https', ...tlsFlags], /^metalfleet: --port: expected a whole number >= 0, got "https"$/m],
    [['--log-level', 'loud', ...tlsFlags], /^metalfleet: --log-level: expected one of trace, debug, info, warn, error, fatal, silent, got "loud"$/m],
    [['--tls-cert', `${pki.dir}/nope.crt`, '--tls-key', files.keyFile], new RegExp(`^metalfleet: --tls-cert ${pki.dir}/nope\\.crt: cannot read: no such file$`, 'm')],
    [['--tls-cert', files.certFile, '--tls-key', other.keyFile], new RegExp(`^metalfleet: --tls-key ${other.keyFile}: does not match the certificate in ${files.certFile}$`, 'm')],
    [['--tls-cert', files.keyFile, '--tls-key', files.keyFile], /^metalfleet: --tls-cert .*: not a PEM certificate$/m],
    [['--tls-cert', '', '--tls-key', files.keyFile], /^metalfleet: --tls-cert: expected a file path, got ""$/m],
  ];
  for (const [args, message] of cases) {
    const r = await metalfleet('webhook', '--host', '127.0.0.1', ...args);
    t.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr, message);
    t.is(r.stdout, '');
  }
});

test('webhook cli - a port in use is refused naming it', async (t) => {
  const pki = await makePki(t);
  const files = await issue(pki, 'tls');
  const first = started(t, '--port', '0', '--host', '127.0.0.1', '--tls-cert', files.certFile, '--tls-key', files.keyFile);
  const port = new URL((JSON.parse(await firstLine(first)) as { url: string }).url).port;
  const second = await metalfleet('webhook', '--port', port, '--host', '127.0.0.1', '--tls-cert', files.certFile, '--tls-key', files.keyFile);
  t.is(second.code, 1);
  t.regex(second.stderr, new RegExp(`^metalfleet: --port ${port}: already in use on 127\\.0\\.0\\.1$`, 'm'));
  first.child.kill('SIGTERM');
  t.deepEqual(await first.exited, { code: 0, signal: null });
});

test('webhook cli - --help shows the flags and an example', async (t) => {
  const r = await metalfleet('webhook', '--help');
  t.is(r.code, 0);
  for (const flag of ['--port <n>', '--tls-cert <file>', '--tls-key <file>', '--host <address>', '--log-level <level>']) t.true(r.stdout.includes(flag), flag);
  t.regex(r.stdout, /Example:\n {2}metalfleet webhook --port 9443 --tls-cert /);
  t.regex(r.stdout, /admissionReviewVersions: \[v1\]/);
});
