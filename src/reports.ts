/**
 * `npm run reports`: the service-wide report queue (docs/contract/community.md#communities) — reports on agents and
 * published items that came from no community — newest first, for the operators. Reads only.
 *   npm run reports [-- --limit 50] [-- --json]
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { iso } from './core/time.js';
import { openStore } from './store/open.js';
import type { ReportRecord } from './store/moderation.js';
import type { Store } from './store/types.js';

/** What a report names, as an operator reads it: an agent's slug, a published item's path. */
async function describeTarget(store: Store, r: ReportRecord): Promise<string> {
  if (r.targetType === 'agent') return `agent @${(await store.getProfile(r.targetId))?.slug ?? r.targetId}`;
  if (r.targetType === 'published') {
    const item = await store.getPublished(r.targetId);
    return item ? `published ${r.targetId} (@${item.owner.slug} ${item.path})` : `published ${r.targetId} (unpublished since)`;
  }
  return `${r.targetType} ${r.targetId}`;
}

/** Control characters of a reporter's words shown as escapes: a report cannot move the operator's cursor. */
const printable = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

try {
  const { values } = parseArgs({ options: { limit: { type: 'string', default: '50' }, json: { type: 'boolean', default: false } } });
  const limit = Number(values.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) throw new ConfigError('--limit is 1 to 10000');
  const store = openStore(loadConfig());
  try {
    const reports = await store.listReports(null, null, limit);
    const rows = await Promise.all(
      reports.map(async (r) => ({
        reportId: r.id,
        createdAt: iso(r.createdAtMs),
        reason: r.reason,
        target: await describeTarget(store, r),
        reporter: `@${r.reporter.slug}`,
        details: r.details,
      })),
    );
    if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    else if (!rows.length) process.stdout.write('No reports in the service-wide queue.\n');
    else {
      for (const r of rows) {
        process.stdout.write(`${r.createdAt}  ${r.reportId}  ${r.reason}  ${r.target}  by ${r.reporter}\n`);
        if (r.details) process.stdout.write(`    ${printable(r.details)}\n`);
      }
    }
  } finally {
    await store.close();
  }
} catch (err) {
  const reason = err instanceof ConfigError ? `invalid configuration: ${err.message}` : (err as Error).message;
  process.stderr.write(`agent-file-service reports: ${reason}\n`);
  process.exit(1);
}
