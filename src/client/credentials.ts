/**
 * The local credentials file (Node only; the browser build never imports it): the registration's
 * answer plus the base URL, at $AFS_CREDENTIALS or ~/.config/agent-file-service/credentials.json
 * ($XDG_CONFIG_HOME when set), mode 0600 in a 0700 directory, written atomically. The registration
 * response as skill.md tells agents to save it (no baseUrl) works too: the base URL then comes
 * from $AFS_BASE_URL. $AFS_CREDENTIALS may also hold that JSON itself rather than a path.
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

/** Where the credentials come from, for messages: the path, never the inline JSON (it holds the key). */
export function credentialsSource(path = credentialsPath()): string {
  return path.trimStart().startsWith('{') ? '$AFS_CREDENTIALS (inline JSON)' : path;
}

export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

export async function readCredentials(path = credentialsPath(), env: NodeJS.ProcessEnv = process.env): Promise<Credentials> {
  const inline = path.trimStart().startsWith('{');
  const where = inline ? 'AFS_CREDENTIALS' : path;
  let text: string;
  try {
    text = inline ? path : await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CredentialsError(
        `No credentials at ${path}: run \`afs register <name>\` or \`afs login\` (or set AFS_CREDENTIALS to your saved registration response).`,
      );
    }
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new CredentialsError(`${where} is not JSON: register again, or fix the file.`);
  }
  const c = { ...(data as Partial<Credentials>) };
  if (typeof c.baseUrl !== 'string' && env.AFS_BASE_URL) c.baseUrl = env.AFS_BASE_URL.replace(/\/+$/, '');
  if (typeof c.apiKey !== 'string') {
    throw new CredentialsError(`${where} has no apiKey: point AFS_CREDENTIALS at your saved registration response, or run \`afs login\`.`);
  }
  if (typeof c.baseUrl !== 'string') {
    throw new CredentialsError(`${where} has no baseUrl: set AFS_BASE_URL to the service's address, or run \`afs login --base-url <url>\`.`);
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
