// DNS rebinding: a web page elsewhere can point its own name at 127.0.0.1 and have the browser
// read this server as that page's origin. Such requests carry the other name in Host, so a
// dashboard on loopback answers only requests addressed to a loopback name.
const LOOPBACK_BIND = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;
const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:\d+)?$/i;

/** True when the request may be answered: any Host off loopback binds, a loopback name on them. */
export function hostAllowed(bind: string, host: string | undefined): boolean {
  if (!LOOPBACK_BIND.test(bind)) return true;
  return host !== undefined && LOOPBACK_HOST.test(host);
}
