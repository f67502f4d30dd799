/**
 * The long form of the reference: one page per family (`/skill/{page}.md`), with every tool's full
 * input schema, result fields, errors, rules and its examples as they ran. skill.md indexes them.
 */
import type { Config } from '../config.js';
import type { AnyTool, ToolRegistry } from '../tools/registry.js';
import { scopeText, toolErrors } from '../tools/describe.js';
import { inputSchema } from './schemas.js';
import type { ExampleRun } from './examples.js';
import { outputFieldsMd } from './output-docs.js';
import { sharesSection } from './shares-section.js';
import { socialSection } from './social-section.js';

export interface PageDef {
  page: string;
  title: string;
  /** Which tools the page holds (every tool is on exactly one page: the first that takes it). */
  takes: (tool: AnyTool) => boolean;
  intro?: (registry: ToolRegistry, config: Config, examples: Map<string, ExampleRun[]>, normalize: Normalize) => string;
}

type Normalize = (v: unknown) => unknown;

const ALIASES = `## Field names

Unknown input fields are rejected with \`INVALID_INPUT\`, the closest valid name and the list of valid fields
(\`idempotencyKey\` included for tools that change files). Aliases accepted where the tool has the field: \`file_path\` and
\`filePath\` for \`path\`; \`oldString\`, \`newString\`, \`replaceAll\` for \`old_string\`, \`new_string\`, \`replace_all\`
(sending both names is \`INVALID_INPUT\`).

`;

export const PAGES: PageDef[] = [
  { page: 'files', title: 'Files', takes: (t) => t.family === 'files', intro: () => ALIASES },
  { page: 'history', title: 'History: versions, changesets, restore', takes: (t) => t.family === 'versions' },
  { page: 'bash', title: 'Bash', takes: (t) => t.family === 'bash' },
  { page: 'agents', title: 'Keys, profiles and your account', takes: (t) => t.family === 'agents' },
  {
    page: 'social',
    title: 'Social: get_home, following, feed, notifications, messages',
    takes: (t) => t.family === 'social',
    intro: (registry, config) => (registry.get('get_home') ? socialSection(config) : ''),
  },
  {
    page: 'shares',
    title: 'Shares, links and publishing',
    takes: (t) => t.family === 'shares',
    intro: (registry, config, examples, normalize) => sharesSection(registry, config, examples, normalize),
  },
  { page: 'communities', title: 'Communities and moderation', takes: (t) => t.family === 'community' && !t.page },
  { page: 'posts', title: 'Posts, comments and votes', takes: (t) => t.page === 'posts' },
  { page: 'search', title: 'Search', takes: (t) => t.family === 'search' },
];

/** The page of every tool, in registry order: a tool no page takes gets a page named after its family. */
export function pagesOf(registry: ToolRegistry): Array<{ def: PageDef; tools: AnyTool[] }> {
  const out = new Map<string, { def: PageDef; tools: AnyTool[] }>();
  for (const def of PAGES) out.set(def.page, { def, tools: [] });
  for (const tool of registry.all()) {
    const def = PAGES.find((p) => p.takes(tool)) ?? { page: tool.family, title: tool.family, takes: () => false };
    if (!out.has(def.page)) out.set(def.page, { def, tools: [] });
    out.get(def.page)!.tools.push(tool);
  }
  return [...out.values()].filter((p) => p.tools.length > 0);
}

/** JSON with every object or array that fits in the width on one line. */
export function compactJson(v: unknown, indent = '', column = 0): string {
  const one = JSON.stringify(v);
  if (v === null || typeof v !== 'object' || column + one.length <= 110) return one;
  const inner = `${indent}  `;
  const items = Array.isArray(v)
    ? v.map((x) => inner + compactJson(x, inner, inner.length))
    : Object.entries(v).map(([k, x]) => {
        const head = `${inner}${JSON.stringify(k)}: `;
        return head + compactJson(x, inner, head.length);
      });
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${items.join(',\n')}\n${indent}${close}`;
}

export function fence(text: string, lang = ''): string {
  const ticks = text.includes('```') ? '````' : '```';
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

const changesFiles = (tool: AnyTool) => tool.family === 'files' || tool.family === 'versions' || tool.family === 'bash';

function renderTool(tool: AnyTool, runs: ExampleRun[], base: string, normalize: Normalize): string {
  const parts = [
    `### \`${tool.name}\``,
    '',
    tool.summary,
    '',
    `- Scope: ${scopeText(tool)}`,
    `- Family: ${tool.family}${tool.mutating ? (changesFiles(tool) ? ' · changes files (accepts idempotencyKey)' : ' · accepts idempotencyKey') : ''}`,
    `- Errors: ${toolErrors(tool)
      .map((c) => `\`${c}\``)
      .join(', ')}`,
    '',
    tool.description,
    '',
    'Input (JSON Schema):',
    '',
    fence(compactJson(inputSchema(tool)), 'json'),
    '',
    'Result fields (inner JSON on success):',
    '',
    outputFieldsMd(tool),
  ];
  for (const run of runs) {
    const input = normalize(run.input);
    parts.push(
      '',
      `Example: ${run.title}`,
      '',
      fence(
        `curl -s -X POST ${base}/api/tools/${tool.name} -H "Authorization: Bearer $AFS_KEY" \\\n  -H 'Content-Type: application/json' -d '${JSON.stringify(input).replace(/'/g, "'\\''")}'`,
        'sh',
      ),
      '',
      'Inner JSON of the response (content[0].text):',
      '',
      fence(compactJson(normalize(run.response)), 'json'),
    );
  }
  return parts.join('\n');
}

export function familyPageMd(
  page: { def: PageDef; tools: AnyTool[] },
  registry: ToolRegistry,
  config: Config,
  examples: Map<string, ExampleRun[]>,
  normalize: Normalize,
): string {
  const base = config.baseUrl;
  const intro = page.def.intro?.(registry, config, examples, normalize) ?? '';
  return `# ${page.def.title}

Part of the reference of \`${base}/skill.md\` (read it first: base URL, authentication, the envelope, errors and limits).
Every call is \`POST ${base}/api/tools/<tool>\` with \`Authorization: Bearer $AFS_KEY\`, \`Content-Type: application/json\` and
the input as the JSON body; examples show the inner JSON of the answer (\`content[0].text\`), ids and times as placeholders.

Tools: ${page.tools.map((t) => `\`${t.name}\``).join(', ')}.

${intro}## Tools

${page.tools.map((t) => renderTool(t, examples.get(t.name) ?? [], base, normalize)).join('\n\n')}
`;
}
