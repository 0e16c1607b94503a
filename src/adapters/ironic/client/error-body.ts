import { z } from 'zod';

// Ironic wraps its errors twice: the body is `{"error_message": "<JSON text>"}` and the inner
// JSON is either `{"faultcode", "faultstring", "debuginfo"}` (most errors) or
// `{"code", "title", "description"}` (406 from the version middleware).
const Outer = z.looseObject({ error_message: z.union([z.string(), z.looseObject({})]) });
const Fault = z.looseObject({ faultstring: z.string() });
const Described = z.looseObject({ description: z.string(), title: z.string().optional() });

/** Ironic's message from an error body; a short plain-text body as is; null when none. */
export function ironicErrorMessage(body: string): string | null {
  const text = body.trim();
  if (text === '') return null;
  const outer = Outer.safeParse(tryJson(text));
  if (!outer.success) return looksLikePlainText(text) ? text.slice(0, 500) : null;
  const raw = outer.data.error_message;
  const inner = typeof raw === 'string' ? tryJson(raw) : raw;
  const fault = Fault.safeParse(inner);
  if (fault.success) return fault.data.faultstring;
  const described = Described.safeParse(inner);
  if (described.success) return described.data.description;
  return typeof raw === 'string' ? raw : null;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// A proxy's HTML page is not a message worth quoting.
function looksLikePlainText(text: string): boolean {
  return !text.startsWith('<') && !text.startsWith('{') && !text.startsWith('[');
}
