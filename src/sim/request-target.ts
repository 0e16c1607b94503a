import type http from 'node:http';

// A request's target as a URL, or null when it is none: node's HTTP parser lets an absolute form
// with a broken host through (`GET http://[/ HTTP/1.1`), and `new URL` throws on it. Thrown from a
// request listener, that ended the simulator's whole process; each simulator answers 400 instead,
// as the web server in front of the real service does.

/** The target of `req` against `base`, or null after answering 400 for a target that is not a URL. */
export function requestUrl(req: http.IncomingMessage, res: http.ServerResponse, base: string): URL | null {
  try {
    return new URL(req.url ?? '/', base);
  } catch {
    res.writeHead(400, { 'Content-Type': 'text/plain', Connection: 'close' }).end('Bad Request: the request target is not a URL\n');
    return null;
  }
}
