/**
 * Isolation of the social layer (docs/contract/community.md#conventions "Visibility"): messages,
 * notifications and blocks are visible only to the agents they concern, and what the caller may
 * not see answers exactly as if it did not exist. Agent A probes, over REST and MCP, the private
 * views of B (who talks with C and D, has notifications, blocked D) and of E–C, a pair that
 * includes A's own correspondent E:
 *  - A's private views (notifications, conversations, block list, home, feed) are the same
 *    before and after B, C, D and E–C created theirs, and never name them;
 *  - get_conversation by another pair's conversationId, or with an agent A never wrote to, and
 *    mark_notifications_read with B's notification ids, answer exactly as for never-issued ids
 *    (modulo the id or slug), and change nothing of B's;
 *  - a read-only key reads every agents/social view and changes none of it; a files key reaches
 *    none of them.
 * security-isolation.test.ts holds the file tools' isolation; this file keeps it small.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildRegistry } from '../src/tools/index.js';
import { isolationBackends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type CallResult, type Registered, type TestServer } from './helpers/server.js';

const registry = buildRegistry();
type Input = Record<string, unknown>;
type Probe = [tool: string, input: Input];

/** A's views of its own social data: none of them may change when other agents act. */
const privateProbes = (e: string): Probe[] => [
  ['list_notifications', {}],
  ['list_notifications', { unreadOnly: true }],
  ['list_notifications', { types: ['message'] }],
  ['list_notifications', { types: ['follow'], limit: 1 }],
  ['list_conversations', {}],
  ['list_conversations', { limit: 1 }],
  ['list_blocked', {}],
  ['get_home', {}],
  ['get_feed', {}],
  ['get_feed', { types: ['follow'] }],
  ['get_conversation', { with: e }],
  ['list_followers', {}],
  ['list_following', {}],
  ['get_my_profile', {}],
];

/** What varies between two identical calls for reasons of time, not of data. */
const VARYING = new Set(['requestId', 'lastActiveAt', 'lastHomeAt']);
function stable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stable);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (VARYING.has(k) ? [] : [[k, stable(x)]])));
  return v;
}

/** The same id with its random part changed: same prefix and length, never issued. */
function twinId(id: string): string {
  const i = id.indexOf('_');
  let twin = '';
  for (const ch of id.slice(i + 1)) twin += /[0-9]/.test(ch) ? String((Number(ch) + 5) % 10) : /[a-z]/.test(ch) ? ch.toUpperCase() : ch.toLowerCase();
  return id.slice(0, i + 1) + twin;
}

const cursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');

/** Inputs for every agents/social tool that needs a scope: they succeed with a full key (A's own data). */
function scopeInputs(b: string, e: string, f: string, n: string): Record<string, Input> {
  return {
    list_keys: {},
    get_my_profile: {},
    get_agent: { slug: b },
    list_agents: {},
    get_home: {},
    list_followers: {},
    list_following: { slug: e },
    list_blocked: {},
    get_feed: { filter: 'all' },
    list_notifications: {},
    list_conversations: {},
    get_conversation: { with: e },
    create_key: { label: 'minted by a narrow key', preset: 'files-read' },
    update_my_profile: { description: 'changed by a key that may not' },
    follow: { slug: n },
    unfollow: { slug: e },
    block: { slug: n },
    unblock: { slug: f },
    mark_notifications_read: { all: true },
    send_message: { to: e, body: 'sent by a key that may not' },
    export_my_data: {},
  };
}

for (const backend of isolationBackends()) {
  describe(`social isolation between agents (${backend})`, () => {
    let s: TestServer;
    let a: Registered, b: Registered, c: Registered, d: Registered, e: Registered, f: Registered, n: Registered;
    let aeConversation: string;
    /** A's private views once its own data settled, before anyone else had social data. */
    const beforeOthers = new Map<string, unknown>();
    /** Never in any answer to A: message bodies, message, conversation and notification ids. */
    const secretMarkers = new Set<string>();
    /** Also not in A's private views (they appear in public ones: list_agents, get_feed all): the others' names. */
    const markers = new Set<string>();
    const ids = { conversations: [] as string[], notifications: [] as string[], cursors: {} as Record<string, string> };
    let mcpId = 0;

    const probeKey = (tool: string, input: Input) => `${tool} ${JSON.stringify(input)}`;

    /** Fails if an answer to A names anything of the others that A's own request did not. */
    function scan(text: string, tool: string, input: Input, set: Set<string>): void {
      const sent = JSON.stringify(input);
      for (const m of set) if (!sent.includes(m)) assert.ok(!text.includes(m), `A's ${tool} ${sent} revealed ${m}: ${text.slice(0, 400)}`);
    }

    /** `scan: 'secrets'` where others' public data legitimately shows (get_agent, list_agents, get_feed all). */
    async function asA(key: string, tool: string, input: Input, opts: { scan: 'all' | 'secrets' } = { scan: 'all' }): Promise<CallResult> {
      const r = await s.call(key, tool, input);
      assert.equal(r.status, 200, `${tool}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      assertEnvelope(r, r.isError ? 'error' : 'success');
      scan(r.text, tool, input, opts.scan === 'all' ? markers : secretMarkers);
      return r;
    }

    /** tools/call over POST /mcp: the inner result and isError, as REST's. */
    async function viaMcp(
      key: string,
      tool: string,
      input: Input,
      opts: { scan: 'all' | 'secrets' } = { scan: 'all' },
    ): Promise<{ isError: boolean; inner: any }> {
      const m = await s.raw('/mcp', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++mcpId, method: 'tools/call', params: { name: tool, arguments: input } }),
      });
      assert.equal(m.status, 200, `MCP ${tool}: ${m.text.slice(0, 300)}`);
      const text: string = m.body.result.content[0].text;
      scan(text, `MCP ${tool}`, input, opts.scan === 'all' ? markers : secretMarkers);
      return { isError: m.body.result.isError === true, inner: JSON.parse(text) };
    }

    /** B's own view of its private data: what A's probes must leave exactly as it was. */
    const bState = async () => ({
      notifications: await s.ok(b.apiKey, 'list_notifications', { limit: 100 }),
      conversations: await s.ok(b.apiKey, 'list_conversations'),
      blocked: await s.ok(b.apiKey, 'list_blocked'),
      profile: await s.ok(b.apiKey, 'get_my_profile'),
    });

    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      [a, b, c, d, e, f, n] = (await Promise.all(
        ['Alice Probe', 'Bzq Victim', 'Cqx Friend', 'Dxw Blocked', 'Ekv Pal', 'Fyz Foe', 'Nobody Here'].map((x) => s.register(x)),
      )) as [Registered, Registered, Registered, Registered, Registered, Registered, Registered];

      // A's own social data: a follower and followee (E), a conversation with E, a block (F).
      await s.ok(e.apiKey, 'follow', { slug: a.slug });
      await s.ok(a.apiKey, 'follow', { slug: e.slug });
      aeConversation = (await s.ok(a.apiKey, 'send_message', { to: e.slug, body: 'hello E, from A' })).conversationId;
      await s.ok(e.apiKey, 'send_message', { to: a.slug, body: 'hello A, from E' });
      await s.ok(a.apiKey, 'block', { slug: f.slug });
      // Twice: the first pass reads the conversation and records get_home, the second is settled.
      for (let pass = 0; pass < 2; pass++) {
        for (const [tool, input] of privateProbes(e.slug)) beforeOthers.set(probeKey(tool, input), stable((await asA(a.apiKey, tool, input)).inner));
      }

      // The others' private data: B follows and talks with C and D, blocks D; E talks with C.
      await s.ok(c.apiKey, 'follow', { slug: b.slug });
      await s.ok(d.apiKey, 'follow', { slug: b.slug });
      await s.ok(b.apiKey, 'follow', { slug: c.slug });
      const secrets = ['SECRET-c2b-1', 'SECRET-c2b-2', 'SECRET-b2c-1', 'SECRET-d2b-1', 'SECRET-e2c-1'];
      const sends: Array<[Registered, Registered, string]> = [
        [c, b, secrets[0]!],
        [c, b, secrets[1]!],
        [b, c, secrets[2]!],
        [d, b, secrets[3]!],
        [e, c, secrets[4]!],
      ];
      for (const [from, to, body] of sends) {
        const sent = await s.ok(from.apiKey, 'send_message', { to: to.slug, body: `${body} for your eyes only` });
        secretMarkers.add(sent.messageId).add(sent.conversationId);
        if (!ids.conversations.includes(sent.conversationId)) ids.conversations.push(sent.conversationId);
      }
      await s.ok(b.apiKey, 'block', { slug: d.slug });
      await s.ok(b.apiKey, 'get_home');
      const bNotes = await s.ok(b.apiKey, 'list_notifications', { limit: 1 });
      ids.notifications = (await s.ok(b.apiKey, 'list_notifications', { limit: 100 })).items.map((x: any) => x.id);
      await s.ok(b.apiKey, 'mark_notifications_read', { ids: ids.notifications.slice(-1) });
      ids.cursors = {
        conversation: (await s.ok(b.apiKey, 'get_conversation', { with: c.slug, limit: 1 })).nextCursor,
        blocked: cursor([`blocked:${b.id}`, Date.now(), d.id]),
        notifications: bNotes.nextCursor,
      };
      assert.ok(ids.notifications.length >= 2 && ids.conversations.length === 3 && ids.cursors.conversation, JSON.stringify(ids));
      for (const m of [...secrets, ...ids.notifications]) secretMarkers.add(m);
      for (const m of [...secretMarkers, b.slug, c.slug, d.slug, b.id, c.id, d.id, 'Bzq', 'Cqx', 'Dxw']) markers.add(m);
    });
    after(() => s.close());

    it("A's notifications, conversations, block list, home and feed are the same as before the others had theirs", async () => {
      for (const [tool, input] of privateProbes(e.slug)) {
        const now = stable((await asA(a.apiKey, tool, input)).inner);
        assert.deepEqual(now, beforeOthers.get(probeKey(tool, input)), `${tool} ${JSON.stringify(input)} changed when others acted`);
      }
      // And they are A's: its one conversation (with E), E's two notifications (a follow, a message), one block (F).
      const home = await s.ok(a.apiKey, 'get_home');
      assert.equal(home.you.slug, a.slug);
      assert.deepEqual(
        home.notifications.map((x: any) => [x.type, x.actor.slug]),
        [
          ['message', e.slug],
          ['follow', e.slug],
        ],
      );
      assert.deepEqual(
        (await s.ok(a.apiKey, 'list_conversations')).items.map((x: any) => x.conversationId),
        [aeConversation],
      );
      assert.deepEqual(
        (await s.ok(a.apiKey, 'list_blocked')).items.map((x: any) => x.agent.slug),
        [f.slug],
      );
      // C, in the B–C conversation, reads it: what A is refused is about membership, not the id.
      const bc = await s.ok(c.apiKey, 'get_conversation', { conversationId: ids.conversations[0] });
      assert.equal(bc.with.slug, b.slug);
    });

    /** Pairs of probes: one naming the others' conversation, notification or slug, one naming a never-issued twin. */
    function namedPairs(): Array<[Probe, Probe, (text: string) => string]> {
      const pairs: Array<[Probe, Probe, (text: string) => string]> = [];
      const byId = (real: string) => (text: string) => text.replaceAll(real, twinId(real));
      for (const id of ids.conversations) {
        for (const extra of [{}, { limit: 1 }, { cursor: ids.cursors.conversation }]) {
          pairs.push([
            ['get_conversation', { conversationId: id, ...extra }],
            ['get_conversation', { conversationId: twinId(id), ...extra }],
            byId(id),
          ]);
        }
      }
      for (const other of [b, c, d]) {
        pairs.push([['get_conversation', { with: other.slug }], ['get_conversation', { with: n.slug }], (t) => t.replaceAll(other.slug, n.slug)]);
      }
      for (const id of ids.notifications) {
        pairs.push([['mark_notifications_read', { ids: [id] }], ['mark_notifications_read', { ids: [twinId(id)] }], byId(id)]);
      }
      const all = (t: string) => ids.notifications.reduce((x, id) => x.replaceAll(id, twinId(id)), t);
      pairs.push([['mark_notifications_read', { ids: ids.notifications }], ['mark_notifications_read', { ids: ids.notifications.map(twinId) }], all]);
      const twinBlocked = cursor([`blocked:${twinId(b.id)}`, Date.now(), twinId(d.id)]);
      pairs.push([['list_blocked', { cursor: ids.cursors.blocked }], ['list_blocked', { cursor: twinBlocked }], (t) => t]);
      return pairs;
    }

    it("naming another pair's conversation, B's notifications or agents A never wrote to answers as for never-issued ones, over REST and MCP", async () => {
      const before = await bState();
      let compared = 0;
      for (const [real, twin, rename] of namedPairs()) {
        const where = `${real[0]} ${JSON.stringify(real[1])}`;
        const rr = await asA(a.apiKey, real[0], real[1]);
        const rt = await asA(a.apiKey, twin[0], twin[1]);
        assert.equal(rr.isError, true, `${where} must fail: ${rr.text.slice(0, 300)}`);
        assert.match(rr.inner.error.code, /^(NOT_FOUND|INVALID_INPUT)$/, where);
        assert.deepEqual(JSON.parse(rename(JSON.stringify(stable(rr.inner)))), stable(rt.inner), `${where}: differs from a never-issued twin`);
        const m = await viaMcp(a.apiKey, real[0], real[1]);
        assert.deepEqual(stable(m), stable({ isError: true, inner: rr.inner }), `${where}: MCP differs from REST`);
        compared++;
      }
      // A's own conversation by id works: the refusals above are not a broken lookup.
      assert.equal((await asA(a.apiKey, 'get_conversation', { conversationId: aeConversation })).inner.with.slug, e.slug);
      // A cursor taken from B's notifications, or forged, pages only A's own data.
      for (const [tool, c0] of [
        ['list_notifications', ids.cursors.notifications],
        ['list_conversations', cursor(['conversations', Number.MAX_SAFE_INTEGER])],
      ] as const) {
        if (c0) await asA(a.apiKey, tool, { cursor: c0 });
      }
      assert.deepEqual(stable(await bState()), stable(before), "B's notifications, conversations and block list are as B left them");
      assert.ok(compared >= 15, `${compared} pairs`);
      console.log(`# social isolation (${backend}): ${compared} real-vs-never-issued pairs identical over REST and MCP`);
    });

    it("public views (directory, profiles, followers, the whole feed) show no message, conversation, notification or block of B's", async () => {
      const pub = { scan: 'secrets' } as const;
      const probes: Probe[] = [
        ['get_feed', { filter: 'all', limit: 100 }],
        ['list_agents', { limit: 100 }],
        ['list_agents', { sort: 'popular' }],
        ...[b, c, d].flatMap((x): Probe[] => [
          ['get_agent', { slug: x.slug }],
          ['list_followers', { slug: x.slug }],
          ['list_following', { slug: x.slug }],
        ]),
      ];
      for (const [tool, input] of probes) {
        const r = await asA(a.apiKey, tool, input, pub);
        assert.equal(r.isError, false, `${tool}: ${r.text.slice(0, 300)}`);
        await viaMcp(a.apiKey, tool, input, pub);
      }
      // Only public verbs reach the feed: no message event of anyone's.
      const feed = await s.ok(a.apiKey, 'get_feed', { filter: 'all', limit: 100 });
      assert.deepEqual([...new Set(feed.items.map((x: any) => x.kind))], ['follow']);
      // B's block of D is B's alone: A still sees D, and nothing says D is blocked.
      const seenD = await s.ok(a.apiKey, 'get_agent', { slug: d.slug });
      assert.deepEqual([seenD.blockedByYou, seenD.isFollowing, seenD.followsYou], [false, false, false]);
      assert.ok(
        feed.items.some((x: any) => x.author.slug === d.slug),
        "D's follow of B stays in A's feed",
      );
      assert.ok((await s.ok(a.apiKey, 'list_agents', { limit: 100 })).items.some((x: any) => x.slug === d.slug));
    });

    it("A's private views answer the same over MCP as over REST, naming nobody else", async () => {
      for (const [tool, input] of privateProbes(e.slug)) {
        const m = await viaMcp(a.apiKey, tool, input);
        const r = await asA(a.apiKey, tool, input);
        assert.deepEqual(stable(m), stable({ isError: r.isError, inner: r.inner }), `${tool} ${JSON.stringify(input)}: MCP differs from REST`);
      }
    });

    it('a read-only key reads every agents/social view and changes none; a files key reaches none of them', async () => {
      const ro = (await s.ok(a.apiKey, 'create_key', { label: 'social ro', preset: 'read-only' })).apiKey;
      const files = (await s.ok(a.apiKey, 'create_key', { label: 'social files', preset: 'files' })).apiKey;
      const inputs = scopeInputs(b.slug, e.slug, f.slug, n.slug);
      const tools = registry.all().filter((t) => (t.family === 'agents' || t.family === 'social') && t.scopes.length > 0);
      // get_key_info, revoke_key and rotate_key need no scope: every key reads and retires itself.
      assert.deepEqual(
        tools.map((t) => t.name).filter((x) => !(x in inputs)),
        [],
        'every agents/social tool has an input here',
      );
      const snapshot = async () => {
        const out: Record<string, unknown> = {};
        for (const [tool, input] of privateProbes(e.slug)) out[probeKey(tool, input)] = stable((await s.ok(a.apiKey, tool, input)) as unknown);
        out.keys = (await s.ok(a.apiKey, 'list_keys')).keys.map((k: any) => k.keyId);
        return out;
      };
      const before = await snapshot();
      let reads = 0;
      for (const tool of tools) {
        const input = inputs[tool.name]!;
        const reading = tool.annotations.readOnly;
        // A full-access tool (export_my_data) asks for the full-access key, not for scopes.
        const required = tool.fullAccess ? { fullAccess: true, folder: null, expiresAt: null } : tool.scopes;
        const quiet = { scan: 'secrets' } as const;
        for (const call of [(k: string) => asA(k, tool.name, input, quiet), (k: string) => viaMcp(k, tool.name, input, quiet)]) {
          const r = await call(ro);
          if (reading) {
            assert.equal(r.isError, false, `read-only key, ${tool.name}: ${JSON.stringify(r.inner).slice(0, 300)}`);
            reads++;
          } else {
            assert.equal(r.inner.error?.code, 'INSUFFICIENT_SCOPE', `read-only key, ${tool.name}: ${JSON.stringify(r.inner).slice(0, 300)}`);
            assert.deepEqual(r.inner.error.details.required, required);
          }
          const rf = await call(files);
          assert.equal(rf.inner.error?.code, 'INSUFFICIENT_SCOPE', `files key, ${tool.name}: ${JSON.stringify(rf.inner).slice(0, 300)}`);
          assert.deepEqual(rf.inner.error.details.required, required);
        }
      }
      assert.ok(reads >= 2 * 12, `${reads} reads`);
      // The refusals changed nothing (get_home records itself and lastHomeAt is left out; all else is equal).
      assert.deepEqual(await snapshot(), before);
    });
  });
}
