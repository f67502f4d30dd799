/** `afs register` and `afs whoami`. */
import { access } from 'node:fs/promises';
import { AgentFiles } from '../client/index.js';
import { credentialsPath, readCredentials, writeCredentials } from '../client/credentials.js';
import { connect, EXIT, out, printJson, UsageError, type VerbOptions } from './context.js';

/** The server's own default (src/config.ts: PORT 3000) unless $AFS_BASE_URL says otherwise. */
export const defaultBaseUrl = (): string => process.env.AFS_BASE_URL || 'http://127.0.0.1:3000';

export async function register(name: string, opts: VerbOptions & { baseUrl?: string; showKey?: boolean; force?: boolean }): Promise<number> {
  const path = credentialsPath();
  const exists = await access(path).then(
    () => true,
    () => false,
  );
  if (exists && !opts.force) {
    const who = await readCredentials(path).catch(() => null);
    throw new UsageError(
      `${path} already holds the key of ${who?.slug ?? 'an agent'}: registering again would replace it. ` +
        'Pass --force to replace it, or set AFS_CREDENTIALS to another file.',
    );
  }
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

export async function whoami(opts: VerbOptions): Promise<number> {
  const client = await connect();
  const info = await client.getKeyInfo();
  if (opts.json) {
    printJson({ ...info, baseUrl: client.baseUrl, credentials: credentialsPath() });
    return EXIT.ok;
  }
  const u = info.usage;
  out(`@${info.agent.slug} (${info.agent.name}, ${info.agent.id}) at ${client.baseUrl}`);
  out(`key ${info.keyId} "${info.label}": ${info.fullAccess ? 'full access' : info.scopes.join(' ')}${info.folder ? `, folder ${info.folder}` : ''}`);
  out(`storage ${u.storageBytes} of ${info.limits.storageQuotaBytes} bytes, ${u.files} of ${info.limits.maxFiles} files`);
  out(`credentials ${credentialsPath()}`);
  return EXIT.ok;
}
