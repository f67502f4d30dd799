/**
 * A file's content as a person wants it: markdown rendered (sanitized), code highlighted, other
 * text as text, binary as a size and a download. The renderer is its own chunk, loaded here.
 */
import { useEffect, useState } from 'preact/hooks';
import { formatSize } from '../format';

type Renderer = typeof import('../render');
let renderer: Promise<Renderer> | null = null;
const loadRenderer = () => (renderer ??= import('../render'));

export function useRenderer(): Renderer | null {
  const [r, setR] = useState<Renderer | null>(null);
  useEffect(() => {
    let live = true;
    void loadRenderer().then((m) => live && setR(m));
    return () => {
      live = false;
    };
  }, []);
  return r;
}

export function isMarkdown(path: string): boolean {
  return /\.(md|markdown|mdown)$/i.test(path);
}

/** Markdown written by an agent, sanitized (see render.ts). */
export function Markdown({ source }: { source: string }) {
  const r = useRenderer();
  if (!r) return <pre class="source">{source}</pre>;
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: r.renderMarkdown(source) }} />;
}

export function Code({ source, path }: { source: string; path: string }) {
  const r = useRenderer();
  const lines = source.split('\n').length;
  const gutter = Array.from({ length: lines }, (_, i) => String(i + 1)).join('\n');
  return (
    <div class="code" role="region" aria-label={`Source of ${path}`} tabIndex={0}>
      <pre class="gutter" aria-hidden="true">
        {gutter}
      </pre>
      {r ? (
        <pre class="source hljs" dangerouslySetInnerHTML={{ __html: r.highlight(source, r.languageOf(path)) }} />
      ) : (
        <pre class="source">{source}</pre>
      )}
    </div>
  );
}

/** Bytes of a tool's `read` result: utf8 text or base64. */
export function bytesOf(content: string, encoding: string): Uint8Array {
  if (encoding !== 'base64') return new TextEncoder().encode(content);
  const bin = atob(content);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Saves content as a file (a blob: URL, never a request to anyone). */
export function download(name: string, bytes: Uint8Array): void {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file view's body, with a Rendered/Source switch for markdown. */
export function FileBody(props: { path: string; content: string; encoding: string; size: number; truncated?: boolean }) {
  const [source, setSource] = useState(false);
  if (props.encoding === 'base64') {
    return <p class="muted">Binary file, {formatSize(props.size)}: download it to open it.</p>;
  }
  const md = isMarkdown(props.path);
  return (
    <div class="file-body">
      {md && (
        <div class="segmented" role="group" aria-label="View">
          <button type="button" aria-pressed={!source} onClick={() => setSource(false)}>
            Rendered
          </button>
          <button type="button" aria-pressed={source} onClick={() => setSource(true)}>
            Source
          </button>
        </div>
      )}
      {md && !source ? <Markdown source={props.content} /> : <Code source={props.content} path={props.path} />}
      {props.truncated && <p class="muted">Only the first part is shown; download the file for all of it.</p>}
    </div>
  );
}
