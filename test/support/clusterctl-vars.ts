// clusterctl's variable substitution, as `clusterctl init` and `clusterctl generate cluster` do it,
// so that tests can apply the provider's components and templates exactly as a user would get
// them. The rules are Cluster API's `cmd/clusterctl/client/yamlprocessor/simple_processor.go`
// over drone/envsubst v2 @ 179042472c46 (the version clusterctl pins), checked against that code
// run in Go:
// - `${VAR}`: the value; required: when VAR is not set at all, processing fails naming it (a
//   variable set to "" is set: clusterctl's viper reader allows empty environment values).
// - `${VAR:=d}`, `${VAR=d}`, `${VAR:-d}` (and `:?`, `:+`, which drone treats alike): the value,
//   or d when it is unset OR empty — drone's toDefault, unlike a shell's `=`/`-`. A default may
//   hold `${OTHER}`, expanded but never reported missing.
// - `${VAR:=}`: an empty default is no default: VAR is required.
// - A variable's first occurrence decides: `${V} ${V:=d}` with V unset is missing.
// - `${VAR-d}` is not a default: drone stops at `-` with "missing closing brace".
// - `${ VAR }` (spaces) is first rewritten to `${VAR}` (convertLegacyVars).
// - `$$` in text is a literal `$` (not inside a default); `$VAR` without braces is left as it is.
// Other drone functions (case, substring, trimming, replacement, length) are refused by name:
// nothing metalfleet ships uses them.

export class ClusterctlVariableError extends Error {
  constructor(readonly file: string, readonly missing: readonly string[], message: string) {
    super(message);
    this.name = 'ClusterctlVariableError';
  }
}

type Node =
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'var'; readonly name: string; readonly op: string; readonly args: readonly Node[] };

const IDENT = /[\p{L}\p{Nd}_]/u;
const DEFAULT_OPS = new Set(['', '=', ':=', ':-', ':?', ':+']);
// simple_processor.go legacyVariableRegEx.
const LEGACY = /(\$\{(\s+([A-Za-z0-9_$]+)\s+)\})|(\$\{(\s+([A-Za-z0-9_$]+))\})|(\$\{(([A-Za-z0-9_$]+)\s+)\})/g;

class ParseError extends Error {}

/** A recursive-descent reading of drone's parser for the forms above. */
class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parseAll(): Node[] {
    const nodes: Node[] = [];
    let buf = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (c === '$' && this.text[this.pos + 1] === '{') {
        if (buf) nodes.push({ type: 'text', value: buf });
        buf = '';
        this.pos += 2;
        nodes.push(this.parseFunc());
        continue;
      }
      // drone's escape: `$$` is one `$` in text.
      if (c === '$' && this.text[this.pos + 1] === '$') {
        buf += '$';
        this.pos += 2;
        continue;
      }
      buf += c;
      this.pos += 1;
    }
    if (buf) nodes.push({ type: 'text', value: buf });
    return nodes;
  }

  private parseFunc(): Node {
    let name = '';
    while (this.pos < this.text.length && IDENT.test(this.text[this.pos]!)) name += this.text[this.pos++];
    if (!name) throw new ParseError(this.text[this.pos] === '#' ? 'length (${#VAR}) is not supported here' : 'unable to parse variable name');
    const next = this.text[this.pos];
    if (next === '}') {
      this.pos += 1;
      return { type: 'var', name, op: '', args: [] };
    }
    if (next === '=' || (next === ':' && '=-?+'.includes(this.text[this.pos + 1] ?? ''))) {
      const op = next === '=' ? '=' : `:${this.text[this.pos + 1]!}`;
      this.pos += op.length;
      return { type: 'var', name, op, args: this.parseDefault() };
    }
    if (next === undefined || !':,^/#%'.includes(next)) throw new ParseError('missing closing brace');
    throw new ParseError(`\${${name}${next}…}: drone/envsubst's ${next === ':' ? 'substring' : next === '/' ? 'replacement' : next === '#' || next === '%' ? 'trimming' : 'case'} function is not supported here`);
  }

  /** The default up to the first `}`, with nested `${…}` expanded; drone unescapes nothing here. */
  private parseDefault(): Node[] {
    const args: Node[] = [];
    let buf = '';
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) throw new ParseError('unable to parse substitution within function');
      if (c === '}') {
        this.pos += 1;
        if (buf) args.push({ type: 'text', value: buf });
        return args;
      }
      if (c === '$' && this.text[this.pos + 1] === '{') {
        if (buf) args.push({ type: 'text', value: buf });
        buf = '';
        this.pos += 2;
        args.push(this.parseFunc());
        continue;
      }
      buf += c;
      this.pos += 1;
    }
  }
}

function parse(text: string, file: string): Node[] {
  try {
    return new Parser(text.replace(LEGACY, (m) => m.replace(/\s/g, ''))).parseAll();
  } catch (err) {
    if (err instanceof ParseError) throw new ClusterctlVariableError(file, [], `${file}: ${err.message}`);
    throw err;
  }
}

export interface ClusterctlVariable {
  readonly name: string;
  readonly required: boolean;
  /** The default as written (nested variables as `${NAME}`), '' when required. */
  readonly defaultValue: string;
}

/** The variables a file uses, as `clusterctl generate cluster --list-variables` reports them (first occurrence wins). */
export function listVariables(text: string, file = '<input>'): ClusterctlVariable[] {
  const seen = new Map<string, ClusterctlVariable>();
  for (const node of parse(text, file)) {
    if (node.type !== 'var' || seen.has(node.name)) continue;
    seen.set(node.name, { name: node.name, required: node.args.length === 0, defaultValue: node.args.map(written).join('') });
  }
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function written(node: Node): string {
  return node.type === 'text' ? node.value : `\${${node.name}}`;
}

/**
 * The text with every variable substituted; throws ClusterctlVariableError naming every required
 * variable that `variables` does not set, and the file, before substituting anything.
 */
export function substitute(text: string, variables: Readonly<Record<string, string>>, file = '<input>'): string {
  const nodes = parse(text, file);
  const missing = listVariables(text, file).filter((v) => v.required && !Object.hasOwn(variables, v.name)).map((v) => v.name);
  if (missing.length > 0) {
    throw new ClusterctlVariableError(file, missing,
      `${file}: value for variables [${missing.join(', ')}] is not set. Please set the value using os environment variables or the clusterctl config file`);
  }
  const evaluate = (node: Node): string => {
    if (node.type === 'text') return node.value;
    if (!DEFAULT_OPS.has(node.op)) throw new Error(`unreachable operator ${node.op}`);
    const value = Object.hasOwn(variables, node.name) ? variables[node.name]! : '';
    return value === '' && node.args.length > 0 ? node.args.map(evaluate).join('') : value;
  };
  return nodes.map(evaluate).join('');
}
