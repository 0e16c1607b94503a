import { z } from 'zod';

// MAAS answers errors as `text/plain; charset=utf-8` carrying the message, except form
// validation failures (400), which are JSON `{"field": ["message", ...]}` — `__all__` for errors
// not tied to one field. A Django or proxy HTML page is not quoted: besides being noise, a debug
// page repeats the request, headers included.
const FormErrors = z.record(z.string(), z.union([z.array(z.string()), z.string()]));

// Enough of a message to act on; MAAS's longest (allocation failures) fit easily.
const MAX_MESSAGE = 1_000;

export interface ErrorBody {
  readonly message: string;
  readonly formErrors?: Record<string, string[]>;
}

export function parseErrorBody(body: string, contentType: string | undefined): ErrorBody {
  const text = body.trim();
  if (text === '') return { message: '' };
  const json = /json/i.test(contentType ?? '') || text.startsWith('{') ? tryJson(text) : undefined;
  if (json !== undefined) {
    const form = FormErrors.safeParse(json);
    if (form.success && Object.keys(form.data).length > 0) {
      const formErrors: Record<string, string[]> = {};
      for (const [field, msgs] of Object.entries(form.data)) formErrors[field] = typeof msgs === 'string' ? [msgs] : msgs;
      const message = Object.entries(formErrors)
        .map(([field, msgs]) => (field === '__all__' ? msgs.join(' ') : `${field}: ${msgs.join(' ')}`))
        .join('; ');
      return { message: clip(message), formErrors };
    }
    if (typeof json === 'string') return { message: clip(json) };
  }
  if (text.startsWith('<')) return { message: '' };
  return { message: clip(text) };
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
