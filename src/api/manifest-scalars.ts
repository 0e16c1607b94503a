import type { ScalarTag, Tags } from 'yaml';

// Plain scalars resolved as kubectl resolves them. kubectl reads YAML through sigs.k8s.io/yaml,
// whose go-yaml v2 fork follows YAML 1.1 where the yaml package's core schema follows YAML 1.2:
// `online: yes` was the string "yes" here and true in kubectl. What go-yaml v2 does (resolve.go,
// checked against kubectl 1.32's output):
// - yes/Yes/YES/y/Y/on/On/ON and their no/n/off forms are booleans; other spellings are strings.
// - A scalar that starts with a digit or a sign loses its underscores, then is an integer if Go's
//   ParseInt or ParseUint reads it with base 0 (0x, 0o, 0b, a leading 0 for octal), else a float
//   if it looks like a decimal float and is in range, else a string.
// - One that starts with "." is a float if Go's ParseFloat reads it (underscores between digits).
// - Sexagesimal (1:30) and timestamps stay strings: go-yaml keeps a timestamp it decodes into an
//   interface{} as its text, so `2024-01-01` is sent as written.
// - ~, null, .inf and .nan are as in the core schema (manifest.ts refuses .inf and .nan, as
//   kubectl's conversion to JSON does).

type Resolved = { kind: 'int' | 'float'; value: number } | undefined;

const INT64_MIN_ABS = 2n ** 63n;
const UINT64_END = 2n ** 64n;

const BASE_DIGITS: Readonly<Record<string, readonly [string, RegExp]>> = {
  x: ['0x', /^[0-9a-f]+$/i],
  o: ['0o', /^[0-7]+$/],
  b: ['0b', /^[01]+$/],
};

// Go's strconv.ParseInt(s, 0, 64), falling back to ParseUint for what is past int64.
function goInteger(plain: string): bigint | undefined {
  const sign = plain[0] === '-' || plain[0] === '+' ? plain[0] : '';
  const unsigned = plain.slice(sign.length);
  let literal: string | undefined;
  const base = unsigned[0] === '0' && unsigned.length > 1 ? BASE_DIGITS[unsigned[1]!.toLowerCase()] : undefined;
  if (base !== undefined) {
    if (base[1].test(unsigned.slice(2))) literal = base[0] + unsigned.slice(2);
  } else if (unsigned[0] === '0' && unsigned.length > 1) {
    if (/^[0-7]+$/.test(unsigned.slice(1))) literal = `0o${unsigned.slice(1)}`;
  } else if (/^[0-9]+$/.test(unsigned)) {
    literal = unsigned;
  }
  if (literal === undefined) return undefined;
  const magnitude = BigInt(literal);
  if (sign === '-') return magnitude <= INT64_MIN_ABS ? -magnitude : undefined;
  // ParseUint takes no sign: a "+" past int64 is left to the float reading (the same number).
  if (sign === '+' && magnitude >= INT64_MIN_ABS) return undefined;
  return magnitude < UINT64_END ? magnitude : undefined;
}

const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
// Go's ParseFloat on a scalar that starts with ".": underscores only between digits.
const DOT_FLOAT = /^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/;

/** What go-yaml v2 makes of a plain scalar as a number; undefined when it is not one. */
export function goYamlNumber(source: string): Resolved {
  const first = source[0];
  if (first === '.') {
    if (!DOT_FLOAT.test(source)) return undefined;
    const value = Number(source.replaceAll('_', ''));
    return Number.isFinite(value) ? { kind: 'float', value } : undefined;
  }
  if (first === undefined || !/[-+0-9]/.test(first)) return undefined;
  const plain = source.replaceAll('_', '');
  const integer = goInteger(plain);
  if (integer !== undefined) return { kind: 'int', value: Number(integer) };
  if (!YAML_STYLE_FLOAT.test(plain)) return undefined;
  // Go's ParseFloat refuses a number out of range, and go-yaml then keeps the text.
  const value = Number(plain);
  return Number.isFinite(value) ? { kind: 'float', value } : undefined;
}

// The yaml package only calls `test` on a tag's pattern; these answer with go-yaml's reading.
class Matches extends RegExp {
  constructor(private readonly accepts: (source: string) => boolean) {
    super('');
  }

  override test(source: string): boolean {
    return this.accepts(source);
  }
}

const TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE']);
const FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE']);

const boolTag: ScalarTag = {
  identify: (value) => typeof value === 'boolean',
  default: true,
  tag: 'tag:yaml.org,2002:bool',
  test: new Matches((source) => TRUE.has(source) || FALSE.has(source)),
  resolve: (source) => TRUE.has(source),
};

function numberTag(kind: 'int' | 'float'): ScalarTag {
  return {
    identify: (value) => typeof value === 'number',
    default: true,
    tag: `tag:yaml.org,2002:${kind}`,
    test: new Matches((source) => goYamlNumber(source)?.kind === kind),
    resolve: (source) => goYamlNumber(source)?.value ?? Number.NaN,
  };
}

const REPLACED = new Set(['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float']);

/**
 * The core schema's tags with bool, int and float resolved as kubectl resolves them (the core
 * .inf/.nan tag kept). Pass as `customTags` with `schema: 'core'`.
 */
export function kubectlScalarTags(tags: Tags): Tags {
  const kept = tags.filter((tag) => {
    if (typeof tag === 'string' || !REPLACED.has(tag.tag)) return true;
    return tag.tag === 'tag:yaml.org,2002:float' && tag.test?.test('.inf') === true;
  });
  return [...kept, boolTag, numberTag('int'), numberTag('float')];
}
