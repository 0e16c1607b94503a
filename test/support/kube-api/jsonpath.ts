// The part of client-go's JSONPath (util/jsonpath) that CRD printer columns use, evaluated with
// missing keys allowed as apiextensions' tableconvertor does: fields (`.a.b`, `\.` escaping a dot,
// `['a.b']`), indexes and slices (`[0]`, `[-1]`, `[1:3]`), `[*]`, and filters
// (`[?(@.type=="Ready")]`, `[?(@.x)]`, with == != < <= > >=). The result is every value found.

type Step =
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'wildcard' }
  | { readonly type: 'index'; readonly start?: number; readonly end?: number; readonly single: boolean }
  | { readonly type: 'filter'; readonly path: readonly Step[]; readonly op?: string; readonly value?: unknown };

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function parseLiteral(text: string): unknown {
  const t = text.trim();
  if (/^'.*'$|^".*"$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  const n = Number(t);
  return t !== '' && !Number.isNaN(n) ? n : t;
}

function parseBracket(inner: string): Step {
  const body = inner.trim();
  if (body === '*') return { type: 'wildcard' };
  if (/^'.*'$|^".*"$/.test(body)) return { type: 'field', name: body.slice(1, -1) };
  if (body.startsWith('?(') && body.endsWith(')')) {
    const m = /^(@[^=!<>]*?)\s*(==|!=|<=|>=|<|>)\s*(.+)$/.exec(body.slice(2, -1).trim());
    const left = m ? m[1] as string : body.slice(2, -1).trim();
    const path = parsePath(left.replace(/^@/, ''));
    return m ? { type: 'filter', path, op: m[2], value: parseLiteral(m[3] as string) } : { type: 'filter', path };
  }
  const slice = /^(-?\d*)\s*:\s*(-?\d*)$/.exec(body);
  if (slice) {
    return { type: 'index', start: slice[1] === '' ? undefined : Number(slice[1]), end: slice[2] === '' ? undefined : Number(slice[2]), single: false };
  }
  if (/^-?\d+$/.test(body)) return { type: 'index', start: Number(body), single: true };
  throw new Error(`unrecognized character in action: ${body}`);
}

export function parsePath(path: string): Step[] {
  const text = path.trim().replace(/^\{(.*)\}$/s, '$1');
  const steps: Step[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      let name = '';
      i++;
      while (i < text.length && text[i] !== '.' && text[i] !== '[') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        name += text[i];
        i++;
      }
      if (name === '*') steps.push({ type: 'wildcard' });
      else if (name !== '') steps.push({ type: 'field', name });
    } else if (c === '[') {
      let depth = 0;
      let j = i;
      for (; j < text.length; j++) {
        if (text[j] === '[') depth++;
        else if (text[j] === ']' && --depth === 0) break;
      }
      steps.push(parseBracket(text.slice(i + 1, j)));
      i = j + 1;
    } else if (c === '@' || c === '$') {
      i++;
    } else {
      throw new Error(`unrecognized character in action: ${c ?? ''}`);
    }
  }
  return steps;
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==': return a === b || (typeof a === 'number' && typeof b === 'string' && String(a) === b);
    case '!=': return !compare(a, '==', b);
    default: {
      if (typeof a !== 'number' || typeof b !== 'number') return false;
      return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
    }
  }
}

function applyStep(nodes: readonly unknown[], step: Step): unknown[] {
  const out: unknown[] = [];
  for (const node of nodes) {
    switch (step.type) {
      case 'field':
        if (isRecord(node) && Object.hasOwn(node, step.name)) out.push(node[step.name]);
        break;
      case 'wildcard':
        if (Array.isArray(node)) out.push(...node);
        else if (isRecord(node)) out.push(...Object.values(node));
        break;
      case 'index': {
        if (!Array.isArray(node)) break;
        const at = (n: number): number => (n < 0 ? n + node.length : n);
        if (step.single) {
          const i = at(step.start ?? 0);
          if (i >= 0 && i < node.length) out.push(node[i]);
        } else {
          out.push(...node.slice(Math.max(0, at(step.start ?? 0)), step.end === undefined ? node.length : Math.min(node.length, at(step.end))));
        }
        break;
      }
      case 'filter': {
        if (!Array.isArray(node)) break;
        for (const item of node) {
          const found = evaluate(item, step.path);
          if (step.op === undefined ? found.length > 0 : found.some((v) => compare(v, step.op as string, step.value))) out.push(item);
        }
        break;
      }
    }
  }
  return out;
}

function evaluate(obj: unknown, steps: readonly Step[]): unknown[] {
  let nodes: unknown[] = [obj];
  for (const step of steps) nodes = applyStep(nodes, step);
  return nodes;
}

/** Every value `path` finds in `obj` (none when a key is missing); a path that does not parse finds none. */
export function jsonPathValues(obj: unknown, path: string): unknown[] {
  let steps: Step[];
  try {
    steps = parsePath(path);
  } catch {
    return [];
  }
  return evaluate(obj, steps);
}
