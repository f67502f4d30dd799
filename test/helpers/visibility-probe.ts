/**
 * How the visibility checks (visibility-checks*.ts) read a world as one viewer: its tools over
 * HTTP (the anonymous reader through POST /api/public/{tool}, as the web pages do), every answer
 * scanned for what the model hides (contents by their markers and hashes, the owner's key ids),
 * and "absent" meaning exactly the answer a path that never existed gets.
 */
import { createHash } from 'node:crypto';
import type { TestServer } from './server.js';
import type { ModelView, Viewer } from './visibility-model.js';
import type { Failure, Played } from './visibility-run.js';

export interface Answer {
  status: number;
  inner: any;
  text: string;
}

/** The unique marker of a content (every version the generator writes has one). */
export const markerOf = (content: string) => /m[0-9a-z]+z\d+/.exec(content)![0];
export const sha256 = (content: string) => createHash('sha256').update(content).digest('hex');

export class Probe {
  readonly failures: Failure[];
  private readonly twins = new Map<string, Answer>();
  private readonly hidden: Record<Viewer, Array<{ token: RegExp; what: string; kind?: string }>>;

  constructor(
    readonly s: TestServer,
    readonly played: Played,
    readonly view: ModelView,
  ) {
    this.failures = played.failures;
    const hiddenFor = (viewer: Viewer) => {
      const out: Array<{ token: RegExp; what: string; kind?: string }> = [];
      for (const c of view.contents) {
        if (view.allowed[viewer].has(c)) continue;
        const m = markerOf(c);
        out.push(
          { token: new RegExp(`${m}(?![0-9a-z])`), what: `hidden content ${m}` },
          { token: new RegExp(sha256(c)), what: `hash of hidden ${m}` },
        );
      }
      for (const id of played.keyIds) out.push({ token: new RegExp(id), what: `owner key id ${id}`, kind: 'key-ids' });
      return out;
    };
    this.hidden = { recipient: hiddenFor('recipient'), stranger: hiddenFor('stranger'), anon: hiddenFor('anon') };
  }

  get slug() {
    return this.played.owner.slug;
  }
  pub = (path: string) => `/published/${this.slug}${path}`;
  shr = (path: string) => `/shared/${this.slug}${path}`;

  fail(check: string, detail: string): void {
    this.failures.push({ check, detail: detail.slice(0, 400) });
  }

  /** Fails `check` when the text shows anything the model hides from this viewer. */
  scan(viewer: Viewer, check: string, where: string, text: string): void {
    for (const h of this.hidden[viewer]) {
      if (h.token.test(text)) this.fail(`${check}.${h.kind ?? 'leak'}`, `${viewer} ${where} shows ${h.what}: ${text.slice(0, 300)}`);
    }
  }

  keyOf(viewer: Exclude<Viewer, 'anon'>): string {
    return viewer === 'recipient' ? this.played.recipient.key : this.played.stranger.key;
  }

  /** A tool call as the viewer (anon: the public API), its answer scanned. */
  async ask(viewer: Viewer, check: string, tool: string, input: Record<string, unknown>): Promise<Answer> {
    let r;
    if (viewer === 'anon') {
      r = await this.s.raw(`/api/public/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
    } else {
      r = await this.s.call(this.keyOf(viewer), tool, input);
    }
    this.scan(viewer, check, `${tool} ${JSON.stringify(input)}`, r.text);
    return { status: r.status, inner: r.inner, text: r.text };
  }

  /** The answer should be a success; returns it or records the failure. */
  async expectOk(viewer: Viewer, check: string, tool: string, input: Record<string, unknown>): Promise<any | null> {
    const r = await this.ask(viewer, check, tool, input);
    if (r.status === 200 && r.inner?.success === true) return r.inner;
    this.fail(check, `${viewer} ${tool} ${JSON.stringify(input)}: expected success, got ${r.status} ${r.text.slice(0, 250)}`);
    return null;
  }

  /** The answer must be NOT_FOUND exactly as for a path that never existed (the path swapped for its twin). */
  async expectAbsent(viewer: Viewer, check: string, tool: string, input: Record<string, unknown>, why: string): Promise<void> {
    const path = input.path as string;
    const r = await this.ask(viewer, check, tool, input);
    // The twin: a name that never existed, in the same directory.
    const twinPath = `${path.slice(0, path.lastIndexOf('/'))}/zq9none.txt`;
    const key = `${viewer} ${tool} ${twinPath} ${Object.keys(input).sort().join(',')}`;
    let twin = this.twins.get(key);
    if (!twin) {
      twin = await this.ask(viewer, check, tool, { ...input, path: twinPath });
      this.twins.set(key, twin);
    }
    // Code and message (names aside); details.similar may differ with the name asked for.
    // "Did you mean …?" names details.similar (and replaces the hint to list): it too differs with the name asked for.
    const norm = (a: Answer, p: string) =>
      a.inner?.error
        ? `${a.inner.error.code}: ${String(a.inner.error.message)
            .replaceAll(p, 'PATH')
            .replace(/ Did you mean [^?]*\?$/, ' Use list or bash `find` to see what exists.')}`
        : `${a.status} ${a.text.slice(0, 200)}`;
    const got = norm(r, path);
    const want = norm(twin, twinPath);
    if (r.inner?.error?.code !== 'NOT_FOUND' || got !== want) {
      this.fail(
        check,
        `${viewer} ${tool} ${JSON.stringify(input)} (${why}): expected the NOT_FOUND of a missing path ${want.slice(0, 150)}, got ${got.slice(0, 250)}`,
      );
    }
  }
}
