/** `afs register`, `afs login` and `afs whoami`. */
import { access } from 'node:fs/promises';
import { AgentFiles } from '../client/index.js';
import { credentialsPath, credentialsSource, readCredentials, writeCredentials } from '../client/credentials.js';
import { connect, EXIT, out, printJson, UsageError, type VerbOptions } from './context.js';

/** The server's own default (src/config.ts: PORT 3000) unless $AFS_BASE_URL says otherwise. */
export const defaultBaseUrl = (): string => process.env.AFS_BASE_URL || 'http://127.0.0.1:3000';

/** Refuses to replace a credentials file holding another key, unless --force. */
async function mayReplace(path: string, verb: string, force: boolean | undefined, apiKey?: string): Promise<void> {
  if (path !== credentialsSource(path))
    throw new UsageError(`AFS_CREDENTIALS holds credentials, not a file path: unset it (or name a file) before ${verb}.`);
  const exists = await access(path).then(
    () => true,
    () => false,
  );
  if (!exists || force) return;
  const who = await readCredentials(path).catch(() => null);
  if (apiKey !== undefined && who?.apiKey === apiKey) return;
  throw new UsageError(
    `${path} already holds the key of ${who?.slug ?? 'an agent'}: ${verb} would replace it. ` +
      'Pass --force to replace it, or set AFS_CREDENTIALS to another file.',
  );
}

export async function register(name: string, opts: VerbOptions & { baseUrl?: string; showKey?: boolean; force?: boolean }): Promise<number> {
  const path = credentialsPath();
  await mayReplace(path, 'registering again', opts.force);
  const baseUrl = (opts.baseUrl ?? defaultBaseUrl()).replace(/\/+$/, '');
  const { registration } = await AgentFiles.register({ baseUrl, name });
  await writeCredentials({ baseUrl, ...registration }, path);
  // The key is a secret: shown only when asked, and never in --json unless asked either.
  const shown = opts.showKey ? registration : { ...registration, apiKey: undefined };
  if (opts.json) printJson({ ...shown, baseUrl, credentials: path });
  else {
    out(`Registered ${registration.name} as @${registration.slug} (${registration.id}) at ${baseUrl}.`);
    out(`Key saved to ${path} (mode 0600).${opts.showKey ? '' : ' It is not shown: `afs register --show-key` prints it at registration.'}`);
    if (opts.showKey) out(`API key: ${registration.apiKey}`);
    out('Next: `afs whoami`, `afs put <file> /notes/`, `afs heartbeat`.');
  }
  return EXIT.ok;
}

/** The key: --key, or `--key -` / no --key with piped stdin (keeps it out of the shell history), or $AFS_KEY. */
async function readKey(key: string | undefined): Promise<string> {
  if (key !== undefined && key !== '-') return key.trim();
  if (key === '-' || !process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    const piped = Buffer.concat(chunks).toString('utf8').trim();
    if (piped) return piped;
  }
  if (process.env.AFS_KEY) return process.env.AFS_KEY.trim();
  throw new UsageError('no key: pass --key mk_… (or `--key -` and the key on stdin, or set AFS_KEY).');
}

/** `afs login`: saves an existing key and the base URL (mode 0600) after checking the service accepts it. */
export async function login(opts: VerbOptions & { key?: string; baseUrl?: string; force?: boolean }): Promise<number> {
  const apiKey = await readKey(opts.key);
  const baseUrl = (opts.baseUrl ?? defaultBaseUrl()).replace(/\/+$/, '');
  const path = credentialsPath();
  await mayReplace(path, 'logging in', opts.force, apiKey);
  const info = await new AgentFiles({ baseUrl, apiKey }).getKeyInfo();
  const { id, name, slug } = info.agent;
  await writeCredentials({ baseUrl, apiKey, id, name, slug }, path);
  if (opts.json) printJson({ agent: info.agent, keyId: info.keyId, baseUrl, credentials: path });
  else out(`Logged in as @${slug} (${name}) at ${baseUrl}. Key saved to ${path} (mode 0600).`);
  return EXIT.ok;
}

export async function whoami(opts: VerbOptions): Promise<number> {
  const client = await connect();
  const info = await client.getKeyInfo({ includeLimits: true });
  if (opts.json) {
    printJson({ ...info, baseUrl: client.baseUrl, credentials: credentialsSource() });
    return EXIT.ok;
  }
  const u = info.usage;
  out(`@${info.agent.slug} (${info.agent.name}, ${info.agent.id}) at ${client.baseUrl}`);
  out(`key ${info.keyId} "${info.label}": ${info.fullAccess ? 'full access' : info.scopes.join(' ')}${info.folder ? `, folder ${info.folder}` : ''}`);
  out(`storage ${u.storageBytes} of ${info.limits?.storageQuotaBytes} bytes, ${u.fileCount} of ${info.limits?.maxFiles} files`);
  out(`credentials ${credentialsSource()}`);
  return EXIT.ok;
}
