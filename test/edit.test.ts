/**
 * The edit tool (docs/contract/files.md#the-tools "The edit contract"): literal exact matching, uniqueness,
 * NO_MATCH diagnosis, preconditions, the edits: [...] form (in order, all or nothing),
 * dryRun diffs that match the real call, capped diffs, and byte-for-byte preservation of
 * CRLF, BOM and a missing final newline. Every call goes over HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type TestServer } from './helpers/server.js';

/** The diff's lines without the "+++" header, whose label differs between dryRun and a real call. */
const diffBody = (diff: string) => diff.split('\n').filter((l) => !l.startsWith('+++ '));

for (const backend of backends()) {
  describe(`edit (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let agentId: string;
    before(async () => {
      s = await startServer(backend);
      key = (await s.register('Editor')).apiKey;
      agentId = (await s.ok(key, 'get_key_info')).agent.id;
    });
    after(() => s.close());

    const write = (path: string, content: string) => s.ok(key, 'write', { path, content });
    const readText = async (path: string) => (await s.ok(key, 'read', { path })).content as string;
    const readBytes = async (path: string) => Buffer.from((await s.ok(key, 'read', { path, encoding: 'base64' })).content, 'base64');
    const latestSeq = async () => ((await s.ok(key, 'list_changes', { limit: 1 })).changesets[0]?.seq ?? 0) as number;

    it('replaces a unique string: new version, changeset, diff, base fields; the file has the new text', async () => {
      const w = await write('/e/basic.md', '# Title\nalpha\nbeta\ngamma\n');
      const r = await s.call(key, 'edit', { path: '/e/basic.md', old_string: 'beta', new_string: 'BETA' });
      assert.equal(r.status, 200);
      assertEnvelope(r, 'success');
      const e = r.inner;
      assert.equal(e.applied, true);
      assert.equal(e.replacements, 1);
      assert.equal(e.version, w.version + 1);
      assert.equal(e.baseVersion, w.version);
      assert.equal(e.baseUpdatedAt, w.updatedAt);
      assert.match(e.changesetId, /^cs_/);
      assert.ok(e.updatedAt > w.updatedAt);
      assert.equal(e.diffTruncated, false);
      assert.ok(e.diff.includes('\n-beta\n+BETA\n'), e.diff);
      assert.match(e.diff, /^--- a\/e\/basic\.md\t\(version 1\)\n\+\+\+ b\/e\/basic\.md\t\(version 2\)\n@@ -1,4 \+1,4 @@\n/);
      assert.equal(await readText('/e/basic.md'), '# Title\nalpha\nBETA\ngamma\n');
      const cs = (await s.ok(key, 'list_changes', { limit: 1 })).changesets[0];
      assert.equal(cs.changesetId, e.changesetId);
      assert.equal(cs.tool, 'edit');
      assert.deepEqual(cs.entries, [{ path: '/e/basic.md', op: 'update', type: 'file', fromVersion: 1, toVersion: 2 }]);
    });

    it('matching is literal: regex metacharacters in old_string, $-patterns in new_string inserted as-is', async () => {
      await write('/e/literal.txt', 'x = a.b*(c)+[d]?\ny = aXbbb(c)+d\n');
      await s.ok(key, 'edit', { path: '/e/literal.txt', old_string: 'a.b*(c)+[d]?', new_string: "$& $$ $` $' $1 $<n>" });
      assert.equal(await readText('/e/literal.txt'), "x = $& $$ $` $' $1 $<n>\ny = aXbbb(c)+d\n");
      // '.' does not match 'X' (no regex): not found.
      await s.fail(key, 'edit', { path: '/e/literal.txt', old_string: 'a.bbb', new_string: 'z' }, 'NO_MATCH');
      // replace_all inserts $-patterns literally too.
      await write('/e/literal2.txt', 'k k k\n');
      const r = await s.ok(key, 'edit', { path: '/e/literal2.txt', old_string: 'k', new_string: '$&$&', replace_all: true });
      assert.equal(r.replacements, 3);
      assert.equal(await readText('/e/literal2.txt'), '$&$& $&$& $&$&\n');
    });

    it('matching is exact: case, whitespace and indentation must match', async () => {
      await write('/e/exact.py', 'def f():\n    return 1\n');
      await s.fail(key, 'edit', { path: '/e/exact.py', old_string: 'Return 1', new_string: 'return 2' }, 'NO_MATCH');
      await s.fail(key, 'edit', { path: '/e/exact.py', old_string: '  return 1\n  ', new_string: 'x' }, 'NO_MATCH');
      await s.ok(key, 'edit', { path: '/e/exact.py', old_string: '    return 1', new_string: '    return 2' });
      assert.equal(await readText('/e/exact.py'), 'def f():\n    return 2\n');
    });

    it('overlapping occurrences count as multiple: "aa" in "aaa" → MULTIPLE_MATCHES count 2', async () => {
      await write('/e/overlap.txt', 'aaa');
      const err = await s.fail(key, 'edit', { path: '/e/overlap.txt', old_string: 'aa', new_string: 'b' }, 'MULTIPLE_MATCHES');
      assert.equal(err.details.count, 2);
      assert.deepEqual(err.details.lines, [1]);
      assert.equal((await s.ok(key, 'stat', { path: '/e/overlap.txt' })).version, 1, 'nothing written');
      // replace_all replaces the non-overlapping occurrences left to right.
      const r = await s.ok(key, 'edit', { path: '/e/overlap.txt', old_string: 'aa', new_string: 'b', replace_all: true });
      assert.equal(r.replacements, 1);
      assert.equal(await readText('/e/overlap.txt'), 'ba');
    });

    it('MULTIPLE_MATCHES names the count and the line numbers; replace_all replaces them all', async () => {
      await write('/e/multi.js', 'let x = 1;\nfoo();\nbar();\nfoo();\n\nfoo(); foo();\n');
      const r = await s.call(key, 'edit', { path: '/e/multi.js', old_string: 'foo();', new_string: 'baz();' });
      assert.equal(r.status, 200);
      assertEnvelope(r, 'error');
      const err = r.inner.error;
      assert.equal(err.code, 'MULTIPLE_MATCHES');
      assert.equal(err.details.count, 4);
      assert.deepEqual(err.details.lines, [2, 4, 6]);
      assert.match(err.message, /4 places/);
      assert.match(err.message, /2, 4, 6/);
      assert.match(err.message, /replace_all/);
      const ok = await s.ok(key, 'edit', { path: '/e/multi.js', old_string: 'foo();', new_string: 'baz();', replace_all: true });
      assert.equal(ok.replacements, 4);
      assert.equal(await readText('/e/multi.js'), 'let x = 1;\nbaz();\nbar();\nbaz();\n\nbaz(); baz();\n');
    });

    it('NO_MATCH: closest line with context, and reasons naming line endings (CRLF vs LF)', async () => {
      const lines = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'];
      await write('/e/crlf.txt', lines.join('\r\n') + '\r\n');
      const r = await s.call(key, 'edit', { path: '/e/crlf.txt', old_string: 'four\nfive', new_string: 'x' });
      assertEnvelope(r, 'error');
      const err = r.inner.error;
      assert.equal(err.code, 'NO_MATCH');
      assert.equal(err.details.reasons.length, 1);
      assert.match(err.details.reasons[0], /^line_endings:/);
      assert.match(err.details.reasons[0], /CRLF/);
      assert.deepEqual(err.details.closest, { line: 4, text: 'four' });
      assert.deepEqual(
        err.details.context,
        [1, 2, 3, 4, 5, 6, 7].map((n) => ({ line: n, text: lines[n - 1] })),
      );
      assert.match(err.message, /line_endings/);
      assert.match(err.message, /closest line is 4/);
      // The other way round: a CRLF old_string against an LF file.
      await write('/e/lf.txt', 'one\ntwo\nthree\n');
      const err2 = await s.fail(key, 'edit', { path: '/e/lf.txt', old_string: 'one\r\ntwo', new_string: 'x' }, 'NO_MATCH');
      assert.match(err2.details.reasons[0], /^line_endings:.*LF/);
    });

    it('NO_MATCH reasons: curly vs straight quotes, tabs vs spaces, other whitespace', async () => {
      await write('/e/quotes.md', 'He said \u201chello\u201d and it\u2019s fine.\n');
      const q = await s.fail(key, 'edit', { path: '/e/quotes.md', old_string: 'He said "hello" and it\'s fine.', new_string: 'x' }, 'NO_MATCH');
      assert.deepEqual(
        q.details.reasons.map((r: string) => r.split(':')[0]),
        ['quotes'],
      );
      assert.deepEqual(q.details.closest, { line: 1, text: 'He said \u201chello\u201d and it\u2019s fine.' });

      await write('/e/tabs.go', 'func main() {\n\tfmt.Println("hi")\n}\n');
      const t = await s.fail(key, 'edit', { path: '/e/tabs.go', old_string: '    fmt.Println("hi")', new_string: 'x' }, 'NO_MATCH');
      assert.deepEqual(
        t.details.reasons.map((r: string) => r.split(':')[0]),
        ['tabs_vs_spaces'],
      );
      assert.match(t.details.reasons[0], /tabs/);
      assert.deepEqual(t.details.closest, { line: 2, text: '\tfmt.Println("hi")' });

      await write('/e/ws.js', 'function f() {\n  return   a + b;\n}\n');
      const w = await s.fail(key, 'edit', { path: '/e/ws.js', old_string: 'return a + b;', new_string: 'x' }, 'NO_MATCH');
      assert.deepEqual(
        w.details.reasons.map((r: string) => r.split(':')[0]),
        ['whitespace'],
      );
      assert.deepEqual(w.details.closest, { line: 2, text: '  return   a + b;' });
      assert.deepEqual(
        w.details.context.map((c: { line: number }) => c.line),
        [1, 2, 3, 4],
      );

      // Nothing similar at all: no reasons, no closest line.
      const n = await s.fail(key, 'edit', { path: '/e/ws.js', old_string: 'zzzzzzzzzzzzzzzzzzzz', new_string: 'x' }, 'NO_MATCH');
      assert.deepEqual(n.details.reasons, []);
      assert.equal(n.details.closest, undefined);
    });

    it('NO_CHANGE when old_string equals new_string; nothing written', async () => {
      const w = await write('/e/same.txt', 'same\n');
      const err = await s.fail(key, 'edit', { path: '/e/same.txt', old_string: 'same', new_string: 'same' }, 'NO_CHANGE');
      assert.equal(err.details.path, '/e/same.txt');
      assert.equal((await s.ok(key, 'stat', { path: '/e/same.txt' })).version, w.version);
    });

    it('EDIT_CONFLICT: current version, updatedAt and the key that changed it; expectedUpdatedAt and both fields', async () => {
      const other = await s.addKey(agentId, { scopes: ['files'], label: 'other-writer' });
      const w1 = await write('/e/conflict.txt', 'v1 line\n');
      const w2 = await s.ok(other, 'write', { path: '/e/conflict.txt', content: 'v2 line\n' });
      for (const pre of [
        { expectedVersion: w1.version },
        { expectedUpdatedAt: w1.updatedAt },
        { expectedVersion: w2.version, expectedUpdatedAt: w1.updatedAt },
      ]) {
        const r = await s.call(key, 'edit', { path: '/e/conflict.txt', old_string: 'line', new_string: 'LINE', ...pre });
        assertEnvelope(r, 'error');
        const err = r.inner.error;
        assert.equal(err.code, 'EDIT_CONFLICT', JSON.stringify(pre));
        assert.equal(err.details.current.version, w2.version);
        assert.equal(err.details.current.updatedAt, w2.updatedAt);
        assert.equal(err.details.current.by.label, 'other-writer');
        assert.match(err.message, /version 2/);
        assert.match(err.message, /other-writer/);
      }
      assert.equal(await readText('/e/conflict.txt'), 'v2 line\n');
      const ok = await s.ok(key, 'edit', {
        path: '/e/conflict.txt',
        old_string: 'line',
        new_string: 'LINE',
        expectedVersion: w2.version,
        expectedUpdatedAt: w2.updatedAt,
      });
      assert.equal(ok.version, 3);
      assert.equal(await readText('/e/conflict.txt'), 'v2 LINE\n');
      // Against a deleted file with a precondition: EDIT_CONFLICT naming the delete.
      await s.ok(key, 'delete', { path: '/e/conflict.txt' });
      const gone = await s.fail(key, 'edit', { path: '/e/conflict.txt', old_string: 'LINE', new_string: 'x', expectedVersion: 3 }, 'EDIT_CONFLICT');
      assert.equal(gone.details.current.deleted, true);
      assert.equal(gone.details.current.version, 4);
    });

    it('edits: [...] apply in order to the in-memory text, as one version', async () => {
      const w = await write('/e/seq.txt', 'foo bar\nfoo baz\nbeta\nbeta2\n');
      // 'foo' is ambiguous in the original, but unique once edit 1 has changed the first line.
      await s.fail(key, 'edit', { path: '/e/seq.txt', old_string: 'foo', new_string: 'FOO' }, 'MULTIPLE_MATCHES');
      const r = await s.ok(key, 'edit', {
        path: '/e/seq.txt',
        edits: [
          { old_string: 'foo bar', new_string: 'qux bar' },
          { old_string: 'foo', new_string: 'FOO' },
          { old_string: 'beta', new_string: 'B', replace_all: true },
        ],
      });
      assert.equal(r.replacements, 4);
      assert.equal(r.version, w.version + 1);
      assert.equal(await readText('/e/seq.txt'), 'qux bar\nFOO baz\nB\nB2\n');
      const cs = (await s.ok(key, 'list_changes', { limit: 1 })).changesets[0];
      assert.equal(cs.changesetId, r.changesetId);
      assert.deepEqual(
        cs.entries.map((e: { toVersion: number }) => e.toVersion),
        [w.version + 1],
      );
      // Text that an earlier edit removed is gone for the later ones.
      const err = await s.fail(
        key,
        'edit',
        {
          path: '/e/seq.txt',
          edits: [
            { old_string: 'qux bar\n', new_string: '' },
            { old_string: 'qux', new_string: 'x' },
          ],
        },
        'NO_MATCH',
      );
      assert.equal(err.details.editIndex, 1);
      assert.match(err.message, /Earlier edits in this call already changed the text/);
    });

    it('edits: all or nothing — if edit 3 fails, edits 1 and 2 are not written; details.editIndex', async () => {
      const w = await write('/e/atomic.txt', 'one\ntwo\nthree\n');
      const seq = await latestSeq();
      const r = await s.call(key, 'edit', {
        path: '/e/atomic.txt',
        edits: [
          { old_string: 'one', new_string: '1' },
          { old_string: 'two', new_string: '2' },
          { old_string: 'four', new_string: '4' },
        ],
      });
      assertEnvelope(r, 'error');
      assert.equal(r.inner.error.code, 'NO_MATCH');
      assert.equal(r.inner.error.details.editIndex, 2);
      assert.match(r.inner.error.message, /edit 3 of 3/);
      const multi = await s.fail(
        key,
        'edit',
        {
          path: '/e/atomic.txt',
          edits: [
            { old_string: 'one', new_string: '1' },
            { old_string: 't', new_string: 'T' },
          ],
        },
        'MULTIPLE_MATCHES',
      );
      assert.equal(multi.details.editIndex, 1);
      assert.equal(multi.details.count, 2);
      assert.deepEqual(multi.details.lines, [2, 3]);
      const same = await s.fail(
        key,
        'edit',
        {
          path: '/e/atomic.txt',
          edits: [
            { old_string: 'one', new_string: '1' },
            { old_string: 'two', new_string: 'two' },
          ],
        },
        'NO_CHANGE',
      );
      assert.equal(same.details.editIndex, 1);
      assert.equal(await readText('/e/atomic.txt'), 'one\ntwo\nthree\n');
      assert.equal((await s.ok(key, 'stat', { path: '/e/atomic.txt' })).version, w.version);
      assert.equal(await latestSeq(), seq, 'no changeset');
    });

    it("edits: an old_string that only exists inside an earlier edit's new_string → INVALID_INPUT with editIndex", async () => {
      const w = await write('/e/chain.txt', 'start\nmiddle\nend\n');
      const err = await s.fail(
        key,
        'edit',
        {
          path: '/e/chain.txt',
          edits: [
            { old_string: 'middle', new_string: 'inserted marker' },
            { old_string: 'marker', new_string: 'thing' },
          ],
        },
        'INVALID_INPUT',
      );
      assert.equal(err.details.editIndex, 1);
      assert.equal(err.details.field, 'edits[1].old_string');
      assert.equal(await readText('/e/chain.txt'), 'start\nmiddle\nend\n');
      assert.equal((await s.ok(key, 'stat', { path: '/e/chain.txt' })).version, w.version);
      // If the text also occurs in the original file outside the inserted region, it is fine.
      await s.ok(key, 'edit', {
        path: '/e/chain.txt',
        edits: [
          { old_string: 'middle', new_string: 'end-ish' },
          { old_string: 'end\n', new_string: 'END\n' },
        ],
      });
      assert.equal(await readText('/e/chain.txt'), 'start\nend-ish\nEND\n');
    });

    it('input errors: both forms, a missing new_string, an empty old_string, NOT_FOUND, IS_A_DIRECTORY, binary', async () => {
      await write('/e/in.txt', 'abc\n');
      const both = await s.fail(
        key,
        'edit',
        { path: '/e/in.txt', old_string: 'a', new_string: 'b', edits: [{ old_string: 'a', new_string: 'b' }] },
        'INVALID_INPUT',
      );
      assert.equal(both.details.field, 'edits');
      const missing = await s.fail(key, 'edit', { path: '/e/in.txt', old_string: 'a' }, 'INVALID_INPUT');
      assert.equal(missing.details.field, 'new_string');
      const empty = await s.fail(key, 'edit', { path: '/e/in.txt', old_string: '', new_string: 'b' }, 'INVALID_INPUT');
      assert.equal(empty.details.field, 'old_string');
      const nf = await s.fail(key, 'edit', { path: '/e/nope.txt', old_string: 'a', new_string: 'b' }, 'NOT_FOUND');
      assert.equal(nf.details.path, '/e/nope.txt');
      await s.fail(key, 'edit', { path: '/e', old_string: 'a', new_string: 'b' }, 'IS_A_DIRECTORY');
      await s.ok(key, 'write', { path: '/e/bin.dat', content: Buffer.from([0, 1, 2, 0x61]).toString('base64'), encoding: 'base64' });
      await s.fail(key, 'edit', { path: '/e/bin.dat', old_string: 'a', new_string: 'b' }, 'INVALID_INPUT');
      // Aliases from other tools' vocabularies are accepted.
      const alias = await s.ok(key, 'edit', { path: '/e/in.txt', oldString: 'abc', newString: 'xyz' });
      assert.equal(alias.applied, true);
      assert.equal(await readText('/e/in.txt'), 'xyz\n');
    });

    it('dryRun writes nothing; the real call with expectedVersion: baseVersion applies exactly the same diff', async () => {
      const body = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
      const w = await write('/e/dry.txt', body);
      const seq = await latestSeq();
      const edits = [
        { old_string: 'line 3\n', new_string: 'line three\n' },
        { old_string: 'line 20\nline 21', new_string: 'twenty\ntwenty-one\nextra' },
      ];
      const dry = await s.ok(key, 'edit', { path: '/e/dry.txt', edits, dryRun: true });
      assert.equal(dry.applied, false);
      assert.equal(dry.baseVersion, w.version);
      assert.equal(dry.baseUpdatedAt, w.updatedAt);
      assert.equal(dry.replacements, 2);
      assert.equal(dry.version, undefined);
      assert.equal(dry.changesetId, undefined);
      assert.match(dry.note, new RegExp(`expectedVersion: ${w.version}`));
      assert.match(dry.diff, /\+\+\+ b\/e\/dry\.txt\t\(proposed\)/);
      assert.ok(dry.diff.includes('-line 3\n+line three\n'));
      assert.ok(dry.diff.includes('-line 20\n-line 21\n+twenty\n+twenty-one\n+extra\n'));
      assert.equal(dry.diffStats.hunks, 2);
      // Nothing written: same version, same content, no changeset.
      const st = await s.ok(key, 'stat', { path: '/e/dry.txt' });
      assert.equal(st.version, w.version);
      assert.equal(st.updatedAt, w.updatedAt);
      assert.equal(st.versionCount, 1);
      assert.equal(await readText('/e/dry.txt'), body);
      assert.equal(await latestSeq(), seq);

      const real = await s.ok(key, 'edit', { path: '/e/dry.txt', edits, expectedVersion: dry.baseVersion });
      assert.equal(real.applied, true);
      assert.equal(real.version, w.version + 1);
      assert.deepEqual(diffBody(real.diff), diffBody(dry.diff));
      assert.notEqual(real.diff, dry.diff, 'only the +++ label differs');
      assert.deepEqual(real.diffStats, dry.diffStats);
      // The same dry run against the old base now conflicts.
      const c = await s.fail(
        key,
        'edit',
        { path: '/e/dry.txt', old_string: 'line 5', new_string: 'x', dryRun: true, expectedVersion: w.version },
        'EDIT_CONFLICT',
      );
      assert.equal(c.details.current.version, w.version + 1);
    });

    it('a long diff is capped: diffTruncated true with a note saying how much was left out', async () => {
      const body = Array.from({ length: 1200 }, (_, i) => `row ${i} value`).join('\n') + '\n';
      await write('/e/long.txt', body);
      const r = await s.ok(key, 'edit', { path: '/e/long.txt', old_string: ' value', new_string: ' VALUE', replace_all: true, dryRun: true });
      assert.equal(r.replacements, 1200);
      assert.equal(r.diffTruncated, true);
      const lines = r.diff.trimEnd().split('\n');
      assert.ok(lines.length <= 2 + 400 + 1, `capped (${lines.length} lines)`);
      assert.match(lines[lines.length - 1], /^\.\.\. diff truncated: \d+ more lines \(1200 added, 1200 removed/);
      assert.equal(r.diffStats.added, 1200);
      assert.equal(r.diffStats.removed, 1200);
      const small = await s.ok(key, 'edit', { path: '/e/long.txt', old_string: 'row 5 value', new_string: 'row 5 changed', dryRun: true });
      assert.equal(small.diffTruncated, false);
      assert.doesNotMatch(small.diff, /truncated/);
    });

    it('CRLF, a BOM and a missing final newline are preserved byte for byte outside the edited region', async () => {
      const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
      const text = 'first line\r\nsecond \u00e9 line\r\nthird\tline\r\n\r\nlast line no newline';
      const original = Buffer.concat([BOM, Buffer.from(text, 'utf8')]);
      await s.ok(key, 'write', { path: '/e/bytes.txt', content: original.toString('base64'), encoding: 'base64' });
      assert.deepEqual(await readBytes('/e/bytes.txt'), original);

      await s.ok(key, 'edit', { path: '/e/bytes.txt', old_string: 'second \u00e9 line', new_string: 'SECOND \u00fc LINE' });
      const expected1 = Buffer.concat([BOM, Buffer.from(text.replace('second \u00e9 line', 'SECOND \u00fc LINE'), 'utf8')]);
      assert.deepEqual(await readBytes('/e/bytes.txt'), expected1);

      // An edit at the very end keeps the absence of a final newline; one at the start keeps the BOM.
      await s.ok(key, 'edit', { path: '/e/bytes.txt', old_string: 'no newline', new_string: 'still none' });
      await s.ok(key, 'edit', { path: '/e/bytes.txt', old_string: 'first line\r\n', new_string: 'FIRST\r\n' });
      const expected2 = Buffer.concat([BOM, Buffer.from('FIRST\r\nSECOND \u00fc LINE\r\nthird\tline\r\n\r\nlast line still none', 'utf8')]);
      const got = await readBytes('/e/bytes.txt');
      assert.deepEqual(got, expected2);
      assert.deepEqual(got.subarray(0, 3), BOM);
      assert.notEqual(got[got.length - 1], 0x0a);
      // Every line ending is still CRLF (no bare LF introduced).
      assert.doesNotMatch(got.toString('utf8'), /[^\r]\n/);
    });
  });

  describe(`edit: the file size limit (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { MAX_FILE_BYTES: '4096' });
      key = (await s.register('Small files')).apiKey;
    });
    after(() => s.close());

    it('an edit that would make the file larger than MAX_FILE_BYTES → FILE_TOO_LARGE, in a dry run too, before the text is built', async () => {
      await s.ok(key, 'write', { path: '/f.txt', content: 'a'.repeat(4000) + 'Z' });
      for (const dryRun of [false, true]) {
        const err = await s.fail(key, 'edit', { path: '/f.txt', old_string: 'a', new_string: 'bb', replace_all: true, dryRun }, 'FILE_TOO_LARGE');
        assert.deepEqual(err.details, { path: '/f.txt', size: 8001, limit: 4096 });
        assert.match(err.message, /would make \/f\.txt 8001 characters long; the limit is 4096 bytes per file/);
      }
      // Exactly at the limit is fine.
      const ok = await s.ok(key, 'edit', { path: '/f.txt', old_string: 'Z', new_string: 'b'.repeat(96) });
      assert.equal(ok.size, 4096);
    });
  });
}
