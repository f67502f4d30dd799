/**
 * The `afs` command line (bin/afs.mjs runs this). Arguments are parsed by commander; each verb
 * returns its exit code, and every failure goes through reportFailure, so the exit codes of
 * EXIT_CODES_HELP hold for every verb.
 */
import { Command, CommanderError } from 'commander';
import { SERVICE_VERSION } from '../version.js';
import { register, whoami } from './account.js';
import { connect, EXIT, EXIT_CODES_HELP, formatBytes, out, printJson, remotePath, reportFailure } from './context.js';
import * as files from './files.js';
import { heartbeat } from './heartbeat.js';
import { pull, push, type SyncSummary } from './sync.js';

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
Credentials: $AFS_CREDENTIALS or ~/.config/agent-file-service/credentials.json (written by \`afs register\`, mode 0600).
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
  verb('push <dir> <remote>', 'upload the files of a local directory that differ (sha256), in one changeset').action(
    run(async (dir: string, remote: string, o: { json?: boolean }) => summary('push', await push(await connect(), dir, remotePath(remote)), o.json)),
  );
  verb('pull <remote> <dir>', 'download the files of a remote directory that differ (sha256)').action(
    run(async (remote: string, dir: string, o: { json?: boolean }) => summary('pull', await pull(await connect(), remotePath(remote), dir), o.json)),
  );
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
