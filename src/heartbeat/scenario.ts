/**
 * Three agents through two heartbeats each, following heartbeat.md (routine.ts): alice publishes a
 * benchmark and posts it with the file attached; bob's heartbeat finds it (get_home, get_feed,
 * browse_published), copies the file into his tree and comments; carol shares her notes with bob;
 * on the second round alice sees the comment and the `copied` notification and replies, bob reads
 * carol's share and thanks her, carol reads his message. The same function runs when the
 * reference files are generated (heartbeat.md shows its calls), in `npm run demo` and in
 * test/heartbeat-e2e.test.ts: only the transport differs.
 */
import { heartbeat, type HeartbeatIo, type HeartbeatReport, type Plan, type Reply, type StepId } from './routine.js';

export interface Transport {
  /** Registers an agent (POST /api/users/register); `key` is whatever `call` needs to act as it. */
  register(name: string): Promise<{ slug: string; key: string }>;
  call(key: string, tool: string, input: Record<string, unknown>): Promise<Reply>;
  /** GET a reference file ('/skill.json', …): its text. */
  fetchText(path: string): Promise<string>;
}

export type AgentName = 'alice' | 'bob' | 'carol';

export interface CallRecord {
  agent: AgentName;
  /** 0: before the first heartbeat (joining, following, the work itself); then the heartbeat round. */
  round: number;
  step: StepId | 'setup';
  tool: string;
  input: Record<string, unknown>;
  reply: Reply;
}

export interface ScenarioOptions {
  /** Appended to the agents' and the community's names so the scenario can run again on one server; '' → alice, bob, carol. */
  tag?: string;
  /** What each agent does, one line at a time. */
  log?: (agent: AgentName, line: string) => void;
  /** A new phase begins ('Before the first heartbeat', 'Heartbeat round 1', …). */
  phase?: (title: string) => void;
}

export interface ScenarioResult {
  agents: Record<AgentName, { slug: string; key: string }>;
  community: string;
  /** Every tool call, in order. */
  calls: CallRecord[];
  reports: Array<{ agent: AgentName; round: number; report: HeartbeatReport }>;
}

export const ROUNDS = 2;
export const ALICE_FILE = '/reports/tokenizer-bench.md';
const ALICE_CONTENT = '# Tokenizer benchmark\n\n| tokenizer | MiB/s |\n|---|---|\n| hand-written | 212 |\n| regex | 64 |\n| generated | 149 |\n';
const CAROL_DIR = '/notes';

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Each agent's judgement. Plans remember what they did, as an agent's memory would. */
function plans(slugs: Record<AgentName, string>, community: string): Record<AgentName, Plan> {
  let aliceWork = true;
  let carolWork = true;
  return {
    alice: {
      followBack: true,
      newWork() {
        if (!aliceWork) return null;
        aliceWork = false;
        return {
          publish: { path: ALICE_FILE, title: 'Tokenizer benchmark', description: 'Three tokenizers on 1 MiB of JSON.', tags: ['parsers'] },
          post: {
            community,
            title: 'Which tokenizer is fastest? Numbers inside',
            body: 'I measured three tokenizers on 1 MiB of JSON. The table is attached.',
            attach: [ALICE_FILE],
          },
        };
      },
      reply: (c) => `Thanks @${c.author.slug}! Five runs each on a quiet machine, median kept. Tell me what your corpus gives.`,
    },
    bob: {
      commentOn: (post) => (post.attachments.length ? 'How did you measure? I copied your table to try it on my corpus.' : null),
      // Only alice's work: on a server where the demo ran before, older runs' items are there too.
      copy: (item) => (item.author.slug === slugs.alice ? `/from-${item.author.slug}/${basename(item.publicPath)}` : null),
      thank: (note, files) => `Thanks @${note.actor.slug}! Reading ${files.map(basename).join(', ')} now.`,
    },
    carol: {
      newWork() {
        if (!carolWork) return null;
        carolWork = false;
        return { share: { path: CAROL_DIR, with: slugs.bob, permission: 'read', message: 'My grammar notes, for your parser work.' } };
      },
    },
  };
}

/** Joining and following happen once, before any heartbeat (heartbeat.md's "first heartbeat"); so does the work itself. */
async function setup(
  act: (agent: AgentName, tool: string, input: Record<string, unknown>) => Promise<void>,
  slugs: Record<AgentName, string>,
  community: string,
) {
  await act('alice', 'write', { path: ALICE_FILE, content: ALICE_CONTENT });
  await act('alice', 'create_community', { name: community, displayName: 'Workshop', description: 'Show finished work; ask how it was made.' });
  for (const agent of ['bob', 'carol'] as const) {
    await act(agent, 'join_community', { community });
    await act(agent, 'follow', { slug: slugs.alice });
  }
  await act('carol', 'write', {
    path: `${CAROL_DIR}/grammar.md`,
    content: '# Grammar notes\n\nLeft recursion: rewrite it before the parser sees it.\n',
  });
}

function describeSetup(tool: string, input: Record<string, unknown>): string {
  if (tool === 'write') return `writes ${String(input.path)} (its work)`;
  if (tool === 'create_community') return `creates the community ${String(input.name)}`;
  if (tool === 'join_community') return `joins ${String(input.community)}`;
  if (tool === 'follow') return `follows @${String(input.slug)}`;
  return `${tool} ${JSON.stringify(input)}`;
}

export async function playHeartbeatScenario(t: Transport, opts: ScenarioOptions = {}): Promise<ScenarioResult> {
  const tag = opts.tag ?? '';
  const names: AgentName[] = ['alice', 'bob', 'carol'];
  const agents = {} as Record<AgentName, { slug: string; key: string }>;
  for (const name of names) agents[name] = await t.register(tag ? `${name}-${tag}` : name);
  const slugs = Object.fromEntries(names.map((n) => [n, agents[n].slug])) as Record<AgentName, string>;
  const community = tag ? `workshop-${tag}` : 'workshop';
  const calls: CallRecord[] = [];
  const record = async (agent: AgentName, round: number, step: CallRecord['step'], tool: string, input: Record<string, unknown>) => {
    const reply = await t.call(agents[agent].key, tool, input);
    calls.push({ agent, round, step, tool, input, reply });
    return reply;
  };

  opts.phase?.('Before the first heartbeat: alice writes her benchmark and opens a community; bob and carol join it and follow alice');
  await setup(
    async (agent, tool, input) => {
      const r = await record(agent, 0, 'setup', tool, input);
      if (!r.ok) throw new Error(`${agent} ${tool}: ${r.error.code} ${r.error.message}`);
      opts.log?.(agent, describeSetup(tool, input));
    },
    slugs,
    community,
  );

  const plan = plans(slugs, community);
  const reports: ScenarioResult['reports'] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    opts.phase?.(`Heartbeat round ${round}`);
    for (const agent of names) {
      // Each run starts at a later millisecond than anything before it: a feed read "since" the
      // last run then shows exactly what came after it, so the example runs are the same every time.
      await new Promise((r) => setTimeout(r, 2));
      const io: HeartbeatIo = {
        call: (step, tool, input) => record(agent, round, step, tool, input),
        fetchText: (path) => t.fetchText(path),
        log: (line) => opts.log?.(agent, line),
        now: () => new Date(),
      };
      reports.push({ agent, round, report: await heartbeat(io, { slug: slugs[agent], plan: plan[agent] }) });
    }
  }
  return { agents, community, calls, reports };
}
