/**
 * The `afs` command line (bin/afs.mjs runs this). Arguments are parsed by commander; each verb
 * returns its exit code, and every failure goes through reportFailure, so the exit codes of
 * EXIT_CODES_HELP hold for every verb.
 */
import { Command, CommanderError } from 'commander';
import { SERVICE_VERSION } from '../version.js';
import { login, register, whoami } from './account.js';
import { connect, EXIT, EXIT_CODES_HELP, formatBytes, out, printJson, remotePath, reportFailure } from './context.js';
import * as files from './files.js';
import { heartbeat } from './heartbeat.js';
import { SyncConflict } from './manifest.js';
import { pull, push, type SyncSummary } from './sync.js';
import type { AgentFiles } from '../client/index.js';

type Action = (...args: never[]) => Promise<number>;

/** Wraps a verb: its exit code becomes the process's (set, not process.exit, so output is flushed). */
function run(fn: Action) {
  return async (...args: unknown[]) => {
    // commander passes the positional arguments, then the options object, then the command.
    const withoutCommand = args.slice(0, -1);
    try {
      process.exitCode = await (fn as (...a: unknown[]) => Promise<number>)(...withoutCommand);
    } catch (e) {
      process.exitCode = reportFailure(e);
    }
  };
}

function summary(verb: 'push' | 'pull', s: SyncSummary, json: boolean | undefined): number {
  if (json) printJson(s);
  else {
    const moved = verb === 'push' ? 'sent' : 'received';
    const cs = s.changesetId ? `, changeset ${s.changesetId}` : '';
    out(`${verb}: ${s.sent} file(s) ${moved} (${formatBytes(s.bytes)}), ${s.skipped} unchanged skipped, ${s.seconds.toFixed(2)} s${cs}`);
  }
  return EXIT.ok;
}

const SYNC_HELP = `
push and pull remember what they last synced (.afs-sync.json in the local directory). push refuses to overwrite a file
changed on the service since (it lists them; pull first), pull refuses to overwrite a local file edited since; --force
overrides. The remote may be /shared/{owner}/… (push needs a write share) or /published/… (pull only).`;

interface SyncFlags {
  json?: boolean;
  force?: boolean;
}

/** push or pull, then its summary; with --json a refusal's conflict list goes to stdout too. */
async function sync(verb: 'push' | 'pull', fn: (c: AgentFiles) => Promise<SyncSummary>, o: SyncFlags): Promise<number> {
  try {
    return summary(verb, await fn(await connect()), o.json);
  } catch (e) {
    if (e instanceof SyncConflict && o.json) printJson({ success: false, refused: verb, conflicts: e.conflicts });
    throw e;
  }
}

function build(): Command {
  const program = new Command('afs')
    .description('The Agent File Service from the command line: your versioned cloud files, their history, bash, and any tool.')
    .version(SERVICE_VERSION)
    // Options after a verb are the verb's (`afs restore p --version 3`), never the program's --version.
    .enablePositionalOptions()
    .showHelpAfterError('(afs <verb> --help shows its options)')
    .addHelpText(
      'after',
      `
Credentials: $AFS_CREDENTIALS (a file, or the JSON itself) or ~/.config/agent-file-service/credentials.json (written by
\`afs register\` or \`afs login\`, mode 0600). The registration response saved as skill.md says works as it is: its base URL
then comes from $AFS_BASE_URL.
Remote paths are absolute (/notes/a.md; "notes/a.md" means the same).

${EXIT_CODES_HELP}`,
    )
    .exitOverride();
  const verb = (spec: string, description: string) => program.command(spec).description(description).option('--json', 'print the raw result as JSON');

  verb('register <name>', 'register a new agent and save its key')
    .option('--base-url <url>', 'the service (default: $AFS_BASE_URL or http://127.0.0.1:3000)')
    .option('--show-key', 'also print the API key (it is saved either way)')
    .option('--force', 'replace existing credentials')
    .action(run(register));
  verb('login', 'save an existing key and the service address (checked first)')
    .option('--key <key>', 'the API key (mk_…); "-" or no --key reads it from stdin, else $AFS_KEY')
    .option('--base-url <url>', 'the service (default: $AFS_BASE_URL or http://127.0.0.1:3000)')
    .option('--force', 'replace credentials holding another key')
    .action(run(login));
  verb('whoami', 'who the saved key belongs to, its scopes and usage').action(run(whoami));
  verb('ls [path]', 'list a directory (default /)')
    .option('-l, --long', 'type, size, version, time')
    .option('-r, --recursive', 'the whole subtree')
    .action(run(files.ls));
  verb('cat <path>', 'print a file (exact bytes)').option('--version <n>', 'an earlier version').action(run(files.cat));
  verb('put <local> <remote>', 'upload a file (a remote ending in / keeps the local name)').action(run(files.put));
  verb('get <remote> [local]', 'download a file (default: into the current directory)').action(run(files.get));
  verb('edit <path>', 'replace text in a file')
    .requiredOption('--old <text>', 'the exact text to replace')
    .requiredOption('--new <text>', 'the replacement')
    .option('--all', 'replace every occurrence (default: exactly one must match)')
    .option('--dry-run', 'show the diff, change nothing')
    .action(run(files.edit));
  verb('rm <path>', 'delete a file or directory (history kept: afs restore)')
    .option('-r, --recursive', 'a non-empty directory')
    .action(run(files.rm));
  verb('mv <from> <to>', 'move or rename').option('--overwrite', 'replace an existing destination file').action(run(files.mv));
  verb('log <path>', "a file's versions, newest first").option('--limit <n>', 'how many').action(run(files.log));
  verb('diff <path>', 'unified diff between two versions (default: the last change)')
    .option('--from <n>', 'older version (default: the one before --to)')
    .option('--to <n>', 'newer version (default: current)')
    .action(run(files.diff));
  verb('restore <path>', 'bring back an earlier version as a new one')
    .requiredOption('--version <n>', 'the version to restore')
    .option('--dry-run', 'show what would change')
    .action(run(files.restore));
  verb('bash <command>', "run a shell command on your files; exits with the command's exit code")
    .option('--cwd <dir>', 'working directory (default /)')
    .action(run(files.bash));
  verb('call <tool> [json]', 'call any tool with a JSON input (default {}); prints its result').action(run(files.call));
  verb('push <dir> <remote>', 'upload the files of a local directory that differ (sha256), in one changeset')
    .option('--force', 'overwrite files changed on the service since your last pull or push')
    .addHelpText('after', SYNC_HELP)
    .action(run(async (dir: string, remote: string, o: SyncFlags) => sync('push', (c) => push(c, dir, remotePath(remote), o), o)));
  verb('pull <remote> <dir>', 'download the files of a remote directory that differ (sha256)')
    .option('--force', 'overwrite local files edited since your last pull or push')
    .addHelpText('after', SYNC_HELP)
    .action(run(async (remote: string, dir: string, o: SyncFlags) => sync('pull', (c) => pull(c, remotePath(remote), dir, o), o)));
  verb('heartbeat', 'run the routine of /heartbeat.md and print what needs attention').action(run(heartbeat));
  program
    .command('mcp')
    .description('serve every tool as a local stdio MCP server (for Claude Desktop, Claude Code, Cursor)')
    // Loaded only here: the MCP SDK would slow every other verb's start.
    .action(run(async () => (await import('./mcp.js')).mcp()));
  for (const c of program.commands) c.exitOverride();
  return program;
}

// `afs ls | head`: the reader left; what remains to print is not wanted, and that is no failure.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

try {
  await build().parseAsync(process.argv);
} catch (e) {
  if (!(e instanceof CommanderError)) process.exitCode = reportFailure(e);
  // --help and --version end here too, successfully; any other parse error is a usage error.
  else process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
}
