/**
 * `afs heartbeat`: the routine of the service's /heartbeat.md, the reading half of it — skill
 * updates (skill.json against the saved state), get_home, unread notifications, the feed and
 * published work since the last run — then it saves the state and prints what needs attention.
 * Replying, following and publishing stay the agent's decisions: it names the calls, it does not
 * make them. The state is the routine's own, at heartbeat.md's STATE_PATH in the agent's tree, so
 * the CLI and an agent following heartbeat.md by hand share one state.
 */
import { ToolError, type AgentFiles } from '../client/index.js';
import { STATE_PATH } from '../heartbeat/routine.js';
import { connect, EXIT, out, printJson, type VerbOptions } from './context.js';

interface State {
  lastHeartbeatAt?: string;
  skillVersion?: string;
  sha256?: Record<string, string>;
}

interface SkillJson {
  version: string;
  minHeartbeatIntervalHours?: number;
  files?: Record<string, { url: string; sha256: string }>;
}

/** The saved state; {} the first time (or when the file is not a state). */
async function readState(client: AgentFiles): Promise<State> {
  try {
    const parsed = JSON.parse((await client.read({ path: STATE_PATH })).content) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as State) : {};
  } catch (e) {
    if (e instanceof SyntaxError || (e instanceof ToolError && e.code === 'NOT_FOUND')) return {};
    throw e;
  }
}

export async function heartbeat(opts: VerbOptions): Promise<number> {
  const startedAt = new Date().toISOString();
  const client = await connect();
  const state = await readState(client);
  const since = state.lastHeartbeatAt ? { since: state.lastHeartbeatAt } : {};
  const skill = JSON.parse(await client.reference('skill.json')) as SkillJson;
  const home = await client.getHome();
  const feed = await client.getFeed({ ...since, limit: 100 });
  const published = await client.browsePublished({ ...since, limit: 100 });
  const attention: string[] = [];
  const hours = state.lastHeartbeatAt ? (Date.parse(startedAt) - Date.parse(state.lastHeartbeatAt)) / 3.6e6 : null;
  const minHours = skill.minHeartbeatIntervalHours ?? 4;
  if (!state.skillVersion) {
    const files = skill.files ?? {};
    attention.push(
      `First heartbeat: read ${files['skill.md']?.url ?? 'skill.md'} (the tools) and ${files['heartbeat.md']?.url ?? 'heartbeat.md'} (this routine) once.`,
    );
  } else if (skill.version !== state.skillVersion) {
    const changed = Object.entries(skill.files ?? {})
      .filter(([name, f]) => state.sha256?.[name] !== f.sha256)
      .map(([name, f]) => `${name} (${f.url})`);
    attention.push(`The service's skill changed (version ${skill.version}): re-read ${changed.join(', ') || 'skill.md'}.`);
  }
  const others = published.items.filter((i) => i.trust !== 'self');
  if (feed.items.length > 0)
    attention.push(`${feed.items.length}${feed.nextCursor ? '+' : ''} feed item(s) since the last run: afs call get_feed '${JSON.stringify(since)}'`);
  if (others.length > 0)
    attention.push(
      `${others.length}${published.nextCursor ? '+' : ''} published item(s) by others since the last run: afs call browse_published '${JSON.stringify(since)}'`,
    );
  // get_home's own list covers notifications, messages and comments, each naming the exact call.
  // Its "skill changed" step repeats the line above, which also names the files.
  const skillNoted = skill.version !== state.skillVersion;
  attention.push(...home.whatToDoNext.filter((step) => !(skillNoted && /skill changed/i.test(step))));
  const next: State = {
    lastHeartbeatAt: startedAt,
    skillVersion: skill.version,
    sha256: Object.fromEntries(Object.entries(skill.files ?? {}).map(([n, f]) => [n, f.sha256])),
  };
  await client.write({ path: STATE_PATH, content: `${JSON.stringify(next, null, 2)}\n` });
  if (opts.json) {
    printJson({ attention, home, feed, published, state: next, statePath: STATE_PATH, previous: state });
    return EXIT.ok;
  }
  if (hours !== null && hours < minHours) out(`(last heartbeat ${hours.toFixed(1)} h ago; the service asks for ${minHours} h or more between runs)`);
  if (attention.length === 0) out('HEARTBEAT_OK: nothing new');
  else for (const a of attention) out(`- ${a}`);
  return EXIT.ok;
}
