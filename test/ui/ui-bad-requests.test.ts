// The dashboard's HTTP handler meets requests no page sends: a request target the URL parser
// refuses, and a method a known path does not take. Each gets a clear status and message, and the
// server (the node itself, when the dashboard is on its health port) keeps answering.
import { connect } from 'node:net';
import test from 'ava';
import { startUiFleet } from './fleet.ts';

/** One raw HTTP/1.1 request (what fetch would refuse to send), answered as status line and body. */
function raw(port: number, head: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (c: Buffer) => { text += c.toString('utf8'); });
    socket.on('end', () => {
      const cut = text.indexOf('\r\n\r\n');
      const headers = text.slice(0, cut);
      const rest = text.slice(cut + 4);
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0), headers, body: /transfer-encoding: chunked/i.test(headers) ? unchunk(rest) : rest });
    });
    socket.on('error', reject);
  });
}

function unchunk(text: string): string {
  let out = '';
  for (let at = 0; ;) {
    const eol = text.indexOf('\r\n', at);
    const size = Number.parseInt(text.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

test('ui bad requests - a request target the URL parser refuses is a 400, and the server lives on', async (t) => {
  const f = await startUiFleet({ hosts: 1 });
  try {
    // An absolute-form target with a broken IPv6 host: new URL() threw out of the request handler
    // and took the whole process down (the node too, on its health port).
    const bad = await raw(f.ui.port, 'GET http://[/api/fleet HTTP/1.1');
    t.is(bad.status, 400, bad.headers);
    const body = JSON.parse(bad.body) as { error: string };
    t.regex(body.error, /not a valid request target/);
    t.notRegex(bad.body, /\bat .*\.(ts|js):\d+/, 'no stack trace');
    const after = await fetch(`${f.ui.url}api/config`);
    t.is(after.status, 200, 'the server still answers');
  } finally {
    await f.stop();
  }
});

test('ui bad requests - a known path asked with the wrong method is a 405 naming the method it takes, not a 404', async (t) => {
  const f = await startUiFleet({ hosts: 1 });
  try {
    for (const path of ['', 'api/fleet', 'api/config', 'api/events', 'assets/app.js']) {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const res = await fetch(`${f.ui.url}${path}`, { method });
        t.is(res.status, 405, `${method} /${path}`);
        t.is(res.headers.get('allow'), 'GET, HEAD', `${method} /${path}`);
        t.regex(((await res.json()) as { error: string }).error, new RegExp(`${method} /${path}: use GET`), `${method} /${path}`);
      }
    }
    const command = await fetch(`${f.ui.url}api/hosts/lab/web-0/command`, { method: 'GET' });
    t.is(command.status, 405);
    t.is(command.headers.get('allow'), 'POST');
    // HEAD is GET without a body: a monitor's HEAD of the page is answered, not a 404.
    const head = await fetch(f.ui.url, { method: 'HEAD' });
    t.is(head.status, 200);
    t.regex(head.headers.get('content-type') ?? '', /text\/html/);
    t.is((await fetch(`${f.ui.url}api/nowhere`)).status, 404, 'an unknown path stays a 404');
  } finally {
    await f.stop();
  }
});

test('ui bad requests - an oversized command body is refused with 413 at once, before the rest of it is read', async (t) => {
  const f = await startUiFleet({ hosts: 1, commands: true });
  try {
    const answerTo = (framing: string, first: string): Promise<string> => new Promise<string>((resolve, reject) => {
      const socket = connect(f.ui.port, '127.0.0.1', () => {
        socket.write(`POST /api/hosts/lab/web-0/command HTTP/1.1\r\nHost: 127.0.0.1:${f.ui.port}\r\ncontent-type: application/json\r\nx-metalfleet-ui-token: ${f.token ?? ''}\r\n${framing}\r\n\r\n`);
        socket.write(first);
      });
      let text = '';
      socket.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (text.includes('\r\n\r\n')) resolve(text);
      });
      socket.on('error', reject);
      socket.setTimeout(10_000, () => {
        socket.destroy();
        resolve(`no answer in 10 s; got ${JSON.stringify(text)}`);
      });
    });
    // Headers announcing 64 MiB and the first 8 KiB of it: the answer must not wait for the rest.
    const announced = await answerTo(`content-length: ${64 * 1024 * 1024}`, 'x'.repeat(8_192));
    t.regex(announced, /^HTTP\/1\.1 413 /, announced.slice(0, 200));
    // No length announced (chunked): refused once the limit is passed, the stream left unfinished.
    const streamed = await answerTo('transfer-encoding: chunked', `2000\r\n${'x'.repeat(8_192)}\r\n`);
    t.regex(streamed, /^HTTP\/1\.1 413 /, streamed.slice(0, 200));
    t.is(f.node.fixture.calls('lab/web-0').powerOff, 0);
    t.is((await fetch(`${f.ui.url}api/config`)).status, 200, 'the server still answers');
  } finally {
    await f.stop();
  }
});
