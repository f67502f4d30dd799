/**
 * The local credentials file (Node only; the browser build never imports it): the registration's
 * answer plus the base URL, at $AFS_CREDENTIALS or ~/.config/agent-file-service/credentials.json
 * ($XDG_CONFIG_HOME when set), mode 0600 in a 0700 directory, written atomically.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Credentials {
  baseUrl: string;
  apiKey: string;
  id?: string;
  name?: string;
  slug?: string;
  createdAt?: string;
}

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AFS_CREDENTIALS) return env.AFS_CREDENTIALS;
  const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(config, 'agent-file-service', 'credentials.json');
}

export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

export async function readCredentials(path = credentialsPath()): Promise<Credentials> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CredentialsError(`No credentials at ${path}: run \`afs register <name>\` (or set AFS_CREDENTIALS to your file).`);
    }
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new CredentialsError(`${path} is not JSON: register again, or fix the file.`);
  }
  const c = data as Partial<Credentials>;
  if (typeof c.apiKey !== 'string' || typeof c.baseUrl !== 'string') {
    throw new CredentialsError(`${path} lacks apiKey or baseUrl: register again, or add them.`);
  }
  return c as Credentials;
}

export async function writeCredentials(creds: Credentials, path = credentialsPath()): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only to a new file (and under the umask): set it whatever happened.
  await chmod(tmp, 0o600);
  await rename(tmp, path);
  return path;
}
