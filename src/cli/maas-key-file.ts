// A node's MAAS API key from a file (`--maas-key-file`, a mounted Secret): a flag value shows in
// ps to every user of the machine. The file is judged as ssh judges a private key; no message
// ever holds its content.
import { exposedKeyProblem, KeyFileError, readKeyFile } from '../security/index.ts';
import { CliError } from './cli-error.ts';

// MAAS hands out API keys as consumer_key:token_key:token_secret.
const MAAS_KEY = /^[^:\s]+:[^:\s]+:[^:\s]+$/;

/** The key in `file`, trimmed; a usage error (exit 2) names the file and what to do. */
export async function readMaasKeyFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readKeyFile(file, 'MAAS API key');
  } catch (err) {
    throw err instanceof KeyFileError ? new CliError(`--maas-key-file ${err.message}`, 2) : err;
  }
  const key = text.trim();
  if (!MAAS_KEY.test(key)) throw new CliError(`--maas-key-file ${file}: not a MAAS API key: MAAS gives it as consumer:token:secret on one line (the user's API keys page, or \`maas apikey --username NAME\`)`, 2);
  const open = await exposedKeyProblem(file);
  if (open) throw new CliError(`--maas-key-file ${file}: ${open}: other users may read this MAAS API key; run "chmod 600 ${file}"`, 2);
  return key;
}
