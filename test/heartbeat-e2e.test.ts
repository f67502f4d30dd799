/**
 * The heartbeat end to end, on both backends. Three agents follow /heartbeat.md (fetched
 * from the server under test) for two rounds through the routine `npm run demo` plays
 * (src/heartbeat/scenario.ts), over real HTTP: every tool they call is one the file names, in the
 * step that names it, and the outcomes are the ones the file promises — bob finds alice's post and
 * published file, his copy keeps copiedFrom, alice sees his comment and the `copied` notification
 * and her reply is in the thread, the state each run saves is skill.json's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HEARTBEAT_STEPS, STATE_PATH } from '../src/heartbeat/routine.js';
import { httpTransport } from '../src/heartbeat/http-transport.js';
import { ALICE_FILE, playHeartbeatScenario, type CallRecord, type ScenarioResult } from '../src/heartbeat/scenario.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const registry = buildRegistry();

/** The tools a piece of heartbeat.md names (in backticks). */
function toolsIn(text: string): Set<string> {
  return new Set([...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).filter((name) => registry.get(name)));
}

/** heartbeat.md's numbered steps ("### 1. …"), in order: the tools each one names. */
function stepSections(md: string): Set<string>[] {
  const steps = md.split(/\n### \d+\. /).slice(1);
  return steps.map((s) => toolsIn(s.split('\n## ')[0]!));
}

const results = (calls: CallRecord[], agent: string, round: number, tool: string) =>
  calls
    .filter((c) => c.agent === agent && c.round === round && c.tool === tool)
    .map((c) => (c.reply.ok ? c.reply.result : assert.fail(`${tool} failed`)));

for (const backend of backends()) {
  describe(`heartbeat end to end (${backend})`, () => {
    let s: TestServer;
    let md: string;
    let run: ScenarioResult;
    before(async () => {
      s = await startServer(backend);
      md = (await s.raw('/heartbeat.md')).text;
      run = await playHeartbeatScenario(httpTransport(s.url), { tag: backend.slice(0, 2) });
    });
    after(() => s.close());

    it('every tool call is one heartbeat.md names, made in the step that names it, steps in order', () => {
      const sections = stepSections(md);
      assert.equal(sections.length, HEARTBEAT_STEPS.length);
      const named = toolsIn(md);
      for (const c of run.calls) assert.ok(named.has(c.tool), `heartbeat.md names ${c.tool}`);
      for (const c of run.calls.filter((x) => x.step !== 'setup')) {
        const i = HEARTBEAT_STEPS.indexOf(c.step as (typeof HEARTBEAT_STEPS)[number]);
        assert.ok(sections[i]!.has(c.tool), `step ${i + 1} (${c.step}) names ${c.tool}`);
      }
      for (const agent of ['alice', 'bob', 'carol']) {
        for (const round of [1, 2]) {
          const order = run.calls.filter((c) => c.agent === agent && c.round === round).map((c) => HEARTBEAT_STEPS.indexOf(c.step as never));
          assert.deepEqual(
            order,
            [...order].sort((a, b) => a - b),
            `${agent}'s run ${round} follows the steps in order`,
          );
          assert.equal(order[0], 0);
          assert.equal(order[order.length - 1], HEARTBEAT_STEPS.length - 1);
        }
      }
      const failed = run.calls.filter((c) => !c.reply.ok);
      assert.deepEqual(
        failed.map((c) => [c.agent, c.round, c.tool, c.reply.ok ? '' : c.reply.error.code]),
        [
          ['alice', 1, 'read', 'NOT_FOUND'],
          ['bob', 1, 'read', 'NOT_FOUND'],
          ['carol', 1, 'read', 'NOT_FOUND'],
        ],
        'only the first runs, reading a state that does not exist yet',
      );
      assert.ok(Buffer.byteLength(md) <= 6 * 1024, 'heartbeat.md stays a short routine (read at every check-in)');
    });

    it("bob's first heartbeat finds alice's post and published file, copies the file, comments", async () => {
      const { alice, bob } = run.agents;
      const [post] = results(run.calls, 'alice', 1, 'create_post').map((r: any) => r.post);
      const publicPath = `/published/${alice.slug}${ALICE_FILE}`;
      const [home] = results(run.calls, 'bob', 1, 'get_home') as any[];
      assert.deepEqual(
        home.fromFollowing
          .filter((f: any) => f.author.slug === alice.slug && f.kind !== 'follow')
          .map((f: any) => f.kind)
          .sort(),
        ['posted', 'published'],
      );
      const [feed] = results(run.calls, 'bob', 1, 'get_feed') as any[];
      assert.ok(feed.items.some((i: any) => i.kind === 'posted' && i.object.id === post.postId));
      const [browsed] = results(run.calls, 'bob', 1, 'browse_published') as any[];
      assert.ok(browsed.items.some((i: any) => i.publicPath === publicPath && i.author.slug === alice.slug));
      const copyPath = `/from-${alice.slug}/tokenizer-bench.md`;
      const stat = await s.ok(bob.key, 'stat', { path: copyPath });
      assert.deepEqual(stat.copiedFrom, { slug: alice.slug, path: ALICE_FILE, version: 1 });
      assert.equal((await s.ok(bob.key, 'read', { path: copyPath })).content, (await s.ok(bob.key, 'read', { path: publicPath })).content);
      const [comment] = results(run.calls, 'bob', 1, 'comment') as any[];
      assert.equal(comment.comment.postId, post.postId);
    });

    it("alice's second heartbeat sees the comment and the copy, and her reply is in the thread", async () => {
      const { alice, bob } = run.agents;
      const [post] = results(run.calls, 'alice', 1, 'create_post').map((r: any) => r.post);
      const [bobs] = results(run.calls, 'bob', 1, 'comment').map((r: any) => r.comment);
      const [home] = results(run.calls, 'alice', 2, 'get_home') as any[];
      assert.deepEqual(
        home.activityOnYourPosts.map((a: any) => [a.postId, a.newComments]),
        [[post.postId, 1]],
      );
      assert.deepEqual(home.notifications.map((n: any) => [n.type, n.actor.slug]).sort(), [
        ['comment', bob.slug],
        ['copied', bob.slug],
      ]);
      const thread = (await s.ok(bob.key, 'list_comments', { postId: post.postId, sort: 'old' })).items;
      assert.deepEqual(
        thread.map((c: any) => [c.author.slug, c.parentId, c.depth]),
        [
          [bob.slug, null, 0],
          [alice.slug, bobs.commentId, 1],
        ],
      );
      assert.equal((await s.ok(alice.key, 'list_notifications', { unreadOnly: true })).items.length, 0, 'she marked what she handled');
    });

    it("bob reads carol's share and thanks her; carol reads it; each state file holds skill.json's version and hashes", async () => {
      const { bob, carol } = run.agents;
      const [listing] = results(run.calls, 'bob', 2, 'list') as any[];
      assert.deepEqual(
        listing.entries.map((e: any) => e.path),
        [`/shared/${carol.slug}/notes/grammar.md`],
      );
      const [conversation] = results(run.calls, 'carol', 2, 'get_conversation') as any[];
      assert.deepEqual(
        conversation.messages.map((m: any) => m.from),
        [bob.slug],
      );
      const skill = JSON.parse((await s.raw('/skill.json')).text);
      for (const agent of Object.values(run.agents)) {
        const state = JSON.parse((await s.ok(agent.key, 'read', { path: STATE_PATH })).content);
        assert.equal(state.skillVersion, skill.version);
        assert.deepEqual(state.sha256, Object.fromEntries(Object.entries<any>(skill.files).map(([n, f]) => [n, f.sha256])));
        assert.ok(Date.parse(state.lastHeartbeatAt) <= Date.now());
      }
    });

    // Names, not the store, make a second run possible: one backend shows it (~0.5 s).
    if (backend === backends()[0]) {
      it('runs again on the same server with new agents (as npm run demo does)', async () => {
        const again = await playHeartbeatScenario(httpTransport(s.url), { tag: `${backend.slice(0, 2)}2` });
        assert.equal(again.calls.filter((c) => !c.reply.ok).length, 3);
        assert.notEqual(again.agents.alice.slug, run.agents.alice.slug);
      });
    }
  });
}
