// Error text reaches the terminal escaped and cut: an ESC sequence in a value never reaches it raw.
import test from 'ava';
import { MAX_LINE, terminalText } from '../../src/cli/terminal-text.ts';
import { metalfleet } from './run.ts';

test('terminal text - control characters are shown escaped; tabs and newlines stay', (t) => {
  t.is(terminalText('a\u001b[2Jb\u0007c\u009bd\te\nf'), 'a\\x1b[2Jb\\x07c\\x9bd\te\nf');
});

test('terminal text - a line longer than MAX_LINE is cut and says how much was left out', (t) => {
  const out = terminalText(`${'x'.repeat(MAX_LINE + 500)}\nshort`);
  const [first, second] = out.split('\n');
  t.true(first?.startsWith('x'.repeat(MAX_LINE)));
  t.true(first?.endsWith('… (500 more characters)'));
  t.is(second, 'short');
});

test('terminal text - the CLI prints a refused value escaped, in its own error and in commander\'s', async (t) => {
  const bad = await metalfleet('validate', 'hosts\u001b[31m.yaml');
  t.not(bad.code, 0);
  t.false(bad.stderr.includes('\u001b'), bad.stderr);
  t.true(bad.stderr.includes('hosts\\x1b[31m.yaml'), bad.stderr);
  const unknown = await metalfleet('demo', '--hosts-\u001b[2J');
  t.not(unknown.code, 0);
  t.false(unknown.stderr.includes('\u001b'), unknown.stderr);
  t.true(unknown.stderr.includes('\\x1b[2J'), unknown.stderr);
});
