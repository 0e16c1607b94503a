// Label and field selectors with apimachinery's grammar, semantics and error texts
// (kube-api.md §9; `pkg/labels/selector.go`, `pkg/fields/selector.go`).
import { aggregate, errorBody, invalid } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { isQualifiedName, isValidLabelValue } from './names.ts';

export type LabelOp = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';
export interface LabelRequirement { readonly key: string; readonly op: LabelOp; readonly values: readonly string[] }
export type LabelSelector = readonly LabelRequirement[];

/** A selector that does not parse; the message is what the API server puts in its 400. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

type Tok = 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'end' | 'error';
interface Item { tok: Tok; lit: string }

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const SYMBOLS = new Set(['(', ')', ',', '!', '=', '==', '!=', '>', '<']);

function lex(input: string): Item[] {
  const out: Item[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] as string;
    if (' \t\r\n'.includes(ch)) {
      i++;
    } else if (SPECIAL.has(ch)) {
      let lit = '';
      while (i < input.length && SPECIAL.has(input[i] as string) && SYMBOLS.has(lit + input[i])) lit += input[i++];
      if (lit === '') {
        out.push({ tok: 'error', lit: `error expected: keyword found '${ch}'` });
        i++;
      } else out.push({ tok: lit as Tok, lit });
    } else {
      let lit = '';
      while (i < input.length && !' \t\r\n'.includes(input[i] as string) && !SPECIAL.has(input[i] as string)) lit += input[i++];
      out.push({ tok: lit === 'in' ? 'in' : lit === 'notin' ? 'notin' : 'id', lit });
    }
  }
  out.push({ tok: 'end', lit: '' });
  return out;
}

const BINARY = 'in, notin, =, ==, !=, gt, lt';

export function parseLabelSelector(input: string): LabelSelector {
  const items = lex(input);
  let pos = 0;
  // In a value position `in` and `notin` are plain identifiers.
  const asValue = (it: Item): Item => (it.tok === 'in' || it.tok === 'notin' ? { tok: 'id', lit: it.lit } : it);
  const peek = (): Item => asValue(items[pos] as Item);
  const next = (): Item => asValue(items[pos++] as Item);
  const rawNext = (): Item => items[pos++] as Item;
  const reqs: LabelRequirement[] = [];

  const requirement = (): LabelRequirement => {
    let it = next();
    let op: LabelOp | undefined;
    if (it.tok === '!') {
      op = '!';
      it = next();
    }
    if (it.tok !== 'id') throw new Error(`found '${it.lit}', expected: identifier`);
    const key = it.lit;
    const keyErrs = isQualifiedName(key);
    // The parser validates the key against its own (empty) field path, hence the bare `: `.
    if (keyErrs.length > 0) throw new Error(`: ${errorBody(invalid('', key, keyErrs.join('; ')))}`);
    const after = peek().tok;
    if (after === 'end' || after === ',') return build(key, op ?? 'exists', []);
    if (op === '!') throw new Error(`found '${peek().lit}', expected: ',' or 'end of string'`);
    const o = rawNext();
    const ops: Partial<Record<Tok, LabelOp>> = { in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt' };
    const found = ops[o.tok];
    if (!found) throw new Error(`found '${o.lit}', expected: ${BINARY}`);
    return build(key, found, found === 'in' || found === 'notin' ? values() : exactValue());
  };

  const values = (): string[] => {
    const open = next();
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const first = peek();
    if (first.tok === ')') {
      next();
      return [''];
    }
    if (first.tok !== 'id' && first.tok !== ',') throw new Error(`found '${first.lit}', expected: ',', ')' or identifier`);
    const set = new Set<string>();
    for (;;) {
      const it = next();
      if (it.tok === 'id') {
        set.add(it.lit);
        const after = peek();
        if (after.tok === ',') continue;
        if (after.tok === ')') break;
        throw new Error(`found '${after.lit}', expected: ',' or ')'`);
      } else if (it.tok === ',') {
        if (set.size === 0) set.add('');
        const after = peek();
        if (after.tok === ')') {
          set.add('');
          break;
        }
        if (after.tok === ',') {
          next();
          set.add('');
        }
      } else {
        throw new Error(`found '${it.lit}', expected: ',', or identifier`);
      }
    }
    const close = next();
    if (close.tok !== ')') throw new Error(`found '${first.lit}', expected: ')'`);
    return [...set].sort();
  };

  const exactValue = (): string[] => {
    const t = peek().tok;
    if (t === 'end' || t === ',') return [''];
    const it = next();
    if (it.tok === 'id') return [it.lit];
    throw new Error(`found '${it.lit}', expected: identifier`);
  };

  for (;;) {
    const it = peek();
    if (it.tok === 'end') return reqs;
    if (it.tok !== 'id' && it.tok !== '!') throw new SelectorError(`found '${it.lit}', expected: !, identifier, or 'end of string'`);
    try {
      reqs.push(requirement());
    } catch (e) {
      throw new SelectorError(`unable to parse requirement: ${(e as Error).message}`);
    }
    const sep = next();
    if (sep.tok === 'end') return reqs;
    if (sep.tok !== ',') throw new SelectorError(`found '${sep.lit}', expected: ',' or 'end of string'`);
    const after = peek().tok;
    if (after !== 'id' && after !== '!') throw new SelectorError(`found '${peek().lit}', expected: identifier after ','`);
  }
}

// NewRequirement's checks on the operator's values.
function build(key: string, op: LabelOp, values: string[]): LabelRequirement {
  const errs: FieldError[] = [];
  if (op === 'gt' || op === 'lt') {
    values.forEach((v, i) => {
      if (!/^[-+]?\d+$/.test(v)) errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(invalid(`values[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length > 0) throw new Error(aggregate(errs));
  return { key, op, values };
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  return selector.every((r) => matchRequirement(r, labels ?? {}));
}

function matchRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.op) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value as string);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[-+]?\d+$/.test(value as string)) return false;
      const have = BigInt(value as string);
      const want = BigInt(r.values[0] as string);
      return r.op === 'gt' ? have > want : have < want;
    }
  }
}

export interface FieldRequirement { readonly field: string; readonly op: '=' | '!='; readonly value: string }
export type FieldSelector = readonly FieldRequirement[];

/** fields.ParseSelector: terms split on unescaped commas; `\,`, `\=` and `\\` escape. */
export function parseFieldSelector(input: string): FieldSelector {
  const out: FieldRequirement[] = [];
  for (const term of splitTerms(input)) {
    if (term === '') continue;
    const m = findOperator(term);
    if (!m) throw new SelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
    out.push({ field: m.field, op: m.op === '!=' ? '!=' : '=', value: unescape(m.value, input) });
  }
  return out;
}

function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (ch === '\\' && i + 1 < s.length) {
      cur += ch + (s[i + 1] as string);
      i++;
    } else if (ch === ',') {
      terms.push(cur);
      cur = '';
    } else cur += ch;
  }
  terms.push(cur);
  return terms;
}

function findOperator(term: string): { field: string; op: string; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, value: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescape(value: string, input: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '\\') {
      const nxt = value[i + 1];
      if (nxt !== '\\' && nxt !== ',' && nxt !== '=') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${nxt ?? ''} in '${input}'`);
      }
      out += nxt;
      i++;
    } else if (ch === '=' || ch === ',') {
      throw new SelectorError(`invalid field selector: unescaped ${ch} in '${input}'`);
    } else out += ch;
  }
  return out;
}

export function matchesFields(selector: FieldSelector, fields: ReadonlyMap<string, string>): boolean {
  return selector.every((r) => ((fields.get(r.field) ?? '') === r.value) === (r.op === '='));
}

/** The 400 for a field the resource cannot be selected by. */
export function unsupportedField(selector: FieldSelector, supported: readonly string[]): string | undefined {
  const bad = selector.find((r) => !supported.includes(r.field));
  return bad ? `field label not supported: ${bad.field}` : undefined;
}

