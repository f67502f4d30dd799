/**
 * What every verb shares: the client from the saved credentials, `--json` output, remote path
 * normalisation, and the mapping of failures to exit codes and to messages that say what to do.
 */
import { AgentFiles, NetworkError, ToolError, TransportError } from '../client/index.js';
import { CredentialsError, credentialsPath, credentialsSource, readCredentials } from '../client/credentials.js';

/** The exit codes `afs --help` and the README document. `afs bash` exits with the remote command's own code. */
export const EXIT = { ok: 0, tool: 1, usage: 2, auth: 3, network: 4 } as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  the tool refused the call (its error code and message on stderr), or push/pull refused to overwrite
  2  usage error (bad arguments, unreadable local file, existing credentials)
  3  credentials or authentication (no credentials file, key refused)
  4  network or service error (unreachable, rate limited, bad answer)
  afs bash exits with the remote command's exit code.`;

/** A mistake in how the command was called: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A remote command the CLI ran for the user (push's uploads) failed: exit 1, as a tool error. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

export interface VerbOptions {
  json?: boolean;
}

/** The client of the saved credentials (AFS_CREDENTIALS or the default file). */
export async function connect(): Promise<AgentFiles> {
  const creds = await readCredentials(credentialsPath());
  return new AgentFiles({ baseUrl: creds.baseUrl, apiKey: creds.apiKey });
}

/** Remote paths are absolute; `notes/a.md` is taken as `/notes/a.md` (no remote working directory). */
export function remotePath(p: string | undefined): string {
  if (p === undefined || p === '') return '/';
  return p.startsWith('/') ? p : `/${p}`;
}

export function out(line: string): void {
  process.stdout.write(line.endsWith('\n') ? line : `${line}\n`);
}

export function err(line: string): void {
  process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
}

/** With --json: the raw result, pretty-printed, and nothing else on stdout. */
export function printJson(value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Prints why the command failed and returns its exit code. */
export function reportFailure(e: unknown): number {
  if (e instanceof UsageError) {
    err(`afs: ${e.message}`);
    return EXIT.usage;
  }
  if (e instanceof CommandFailed) {
    err(`afs: ${e.message}`);
    return EXIT.tool;
  }
  if (e instanceof CredentialsError) {
    err(`afs: ${e.message}`);
    return EXIT.auth;
  }
  if (e instanceof ToolError) {
    const details = Object.keys(e.details).length ? `\n  details: ${JSON.stringify(e.details)}` : '';
    err(`afs: ${e.tool} failed: ${e.code}: ${e.message}${details}`);
    return EXIT.tool;
  }
  if (e instanceof TransportError) return transportFailure(e);
  if (e instanceof NetworkError) {
    err(
      `afs: cannot reach the service: ${e.message}\n  Is it running? The base URL is in ${credentialsSource()} (\`afs login --base-url\` sets it).`,
    );
    return EXIT.network;
  }
  err(`afs: ${(e as Error)?.stack ?? String(e)}`);
  return EXIT.network;
}

function transportFailure(e: TransportError): number {
  if (e.status === 401) {
    err(
      `afs: the service refused the saved key (${e.code}: ${e.message}).\n  Register again with \`afs register <name>\`, or point AFS_CREDENTIALS at a valid credentials file.`,
    );
    return EXIT.auth;
  }
  if (e.status === 429) {
    const wait = e.retryAfterSeconds !== null ? ` Try again in ${e.retryAfterSeconds} s.` : ' Try again later.';
    err(`afs: rate limited (${e.code}: ${e.message}).${wait}`);
    return EXIT.network;
  }
  err(`afs: the service answered HTTP ${e.status} (${e.code}: ${e.message}).`);
  return EXIT.network;
}

/** Runs `fn` with a bounded number of calls in flight (the service limits concurrent work per agent). */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
