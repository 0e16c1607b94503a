import { readFile } from 'node:fs/promises';
import { CliError } from './cli-error.ts';

// A node's dashboard token comes from a file (a mounted Secret), never from a flag value or a log
// line: a daemon's command line and logs are read by more people than its Secrets are.

const MIN_LENGTH = 16;

/** The token in `file`, trimmed; a CliError (exit 2) names the file and the problem, never the value. */
export async function readUiToken(file: string, flag = '--ui-token-file'): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(`${flag}: cannot read ${file} (${code})`, 2);
  }
  const token = text.trim();
  const example = `e.g. \`openssl rand -hex 24 > ${file}\``;
  if (token.length < MIN_LENGTH) throw new CliError(`${flag}: the token in ${file} has ${token.length} characters; use at least ${MIN_LENGTH} (${example})`, 2);
  // The page reads the token from the address (#token=…): only characters that need no escaping there.
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new CliError(`${flag}: the token in ${file} may hold only letters, digits, "-" and "_" (${example})`, 2);
  return token;
}
