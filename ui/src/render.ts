/**
 * Rendering what agents wrote, which is untrusted: markdown through marked, then DOMPurify
 * (no script, no event handlers, no style attributes, no forms or frames), then every image that
 * is not an inline data: image becomes a link to open it on click, since the page's CSP
 * (img-src 'self' data:) would refuse it anyway and loading it would tell a third party who
 * reads. Code is highlighted by highlight.js (escaped text in spans). Loaded on demand (its own
 * chunk): the console's tree and history views never need it.
 */
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked } from 'marked';

const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);

const BY_EXTENSION: Record<string, string> = {
  sh: 'bash',
  bash: 'bash',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  css: 'css',
  diff: 'diff',
  patch: 'diff',
  go: 'go',
  java: 'java',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  json: 'json',
  md: 'markdown',
  py: 'python',
  rs: 'rust',
  sql: 'sql',
  ts: 'typescript',
  tsx: 'typescript',
  html: 'xml',
  xml: 'xml',
  svg: 'xml',
  yml: 'yaml',
  yaml: 'yaml',
};

/** Past this, highlighting costs more than it gives: the text is shown plain. */
const HIGHLIGHT_MAX_CHARS = 300_000;

export function languageOf(path: string): string | null {
  const ext = path.split('.').pop()?.toLowerCase() ?? '';
  return BY_EXTENSION[ext] ?? null;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Highlighted HTML of code (escaped; spans with hljs-* classes only). */
export function highlight(code: string, language: string | null): string {
  if (!language || !hljs.getLanguage(language) || code.length > HIGHLIGHT_MAX_CHARS) return escapeHtml(code);
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}

/**
 * Raw HTML inside the markdown is shown as text, never parsed: DOMPurify would strip its
 * handlers and styles, but parsing them in this page already trips the CSP (a report for every
 * onerror= or style=). What is left to sanitize is marked's own HTML (links, images, code).
 */
const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html(token) {
      const text = escapeHtml(token.text);
      return 'block' in token && token.block ? `<pre class="raw-html">${text}</pre>` : text;
    },
  },
});

const PURIFY: { FORBID_TAGS: string[]; FORBID_ATTR: string[]; ALLOW_DATA_ATTR: boolean } = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option', 'iframe', 'frame', 'object', 'embed', 'link', 'meta', 'base'],
  // Inline styles would be refused by the CSP (and reported); ids could clobber the page's own.
  FORBID_ATTR: ['style', 'id', 'name'],
  ALLOW_DATA_ATTR: false,
};

/** What replaces a remote image: a link that opens it on request, saying why it did not load. */
function remoteImagePlaceholder(img: HTMLImageElement): HTMLElement {
  const src = img.getAttribute('src') ?? '';
  const alt = img.getAttribute('alt') || 'image';
  let host = '';
  try {
    host = new URL(src, location.href).host;
  } catch {
    host = '';
  }
  const a = document.createElement('a');
  a.className = 'remote-image';
  a.href = src;
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  // The page's CSP (img-src 'self' data:) would refuse it anyway; opening it is the reader's choice.
  a.textContent = `Image “${alt}”${host && host !== location.host ? ` from ${host}` : ''} not loaded: images in agents' documents are not fetched automatically. Open it in a new tab`;
  return a;
}

/** Sanitized HTML of an agent's markdown (a string for dangerouslySetInnerHTML). */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source) as string;
  const fragment = DOMPurify.sanitize(html, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
  for (const img of Array.from(fragment.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    if (/^data:image\/(png|gif|jpe?g|webp);/i.test(src)) {
      if (!img.getAttribute('alt')) img.setAttribute('alt', 'Image in the document');
    } else {
      img.replaceWith(remoteImagePlaceholder(img));
    }
  }
  for (const a of Array.from(fragment.querySelectorAll('a[href]'))) {
    a.setAttribute('rel', 'noopener noreferrer nofollow ugc');
  }
  for (const code of Array.from(fragment.querySelectorAll('pre > code'))) {
    const lang = /language-([\w-]+)/.exec(code.className)?.[1] ?? null;
    code.innerHTML = highlight(code.textContent ?? '', lang && hljs.getLanguage(lang) ? lang : null);
    code.classList.add('hljs');
  }
  const box = document.createElement('div');
  box.appendChild(fragment);
  return box.innerHTML;
}
