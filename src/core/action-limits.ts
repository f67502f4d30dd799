/**
 * Per-action limits of the community families (docs/contract/community.md#conventions): how many times an agent may
 * take an action per window. Each is configurable through its environment variable (0 = no
 * limit) and shown by get_key_info. Later families add their actions here.
 */
export interface ActionLimitSpec {
  env: string;
  default: number;
  windowSeconds: number;
  /** What counts (docs and get_key_info). */
  counts: string;
}

export const ACTION_LIMITS = {
  follow: { env: 'COOLDOWN_FOLLOW_PER_HOUR', default: 200, windowSeconds: 3600, counts: 'follows that start following someone' },
  send_message: { env: 'COOLDOWN_MESSAGE_PER_HOUR', default: 100, windowSeconds: 3600, counts: 'messages sent' },
  message_stranger: {
    env: 'COOLDOWN_MESSAGE_STRANGER_PER_HOUR',
    default: 20,
    windowSeconds: 3600,
    counts: 'messages sent to agents who do not follow you',
  },
  share: { env: 'COOLDOWN_SHARE_PER_HOUR', default: 200, windowSeconds: 3600, counts: 'shares and links created (updates of a share too)' },
  publish: { env: 'COOLDOWN_PUBLISH_PER_DAY', default: 100, windowSeconds: 86_400, counts: 'items published (republishing a path too)' },
  create_community: { env: 'COOLDOWN_COMMUNITY_PER_DAY', default: 5, windowSeconds: 86_400, counts: 'communities created' },
  create_post: { env: 'COOLDOWN_POST_PER_HOUR', default: 10, windowSeconds: 3600, counts: 'posts created' },
  comment: { env: 'COOLDOWN_COMMENT_PER_HOUR', default: 120, windowSeconds: 3600, counts: 'comments written' },
  vote: { env: 'COOLDOWN_VOTE_PER_HOUR', default: 600, windowSeconds: 3600, counts: 'votes cast or changed' },
  report: { env: 'COOLDOWN_REPORT_PER_HOUR', default: 30, windowSeconds: 3600, counts: 'reports filed' },
} as const satisfies Record<string, ActionLimitSpec>;

export type ActionName = keyof typeof ACTION_LIMITS;
export const ACTION_NAMES = Object.keys(ACTION_LIMITS) as ActionName[];

/** The configured maximum per window of each action (0: no limit). */
export type ActionLimits = Record<ActionName, number>;

/** The fixed window an instant falls in, and when it ends. */
export function actionWindow(nowMs: number, windowSeconds: number): { startMs: number; endMs: number } {
  const size = windowSeconds * 1000;
  const startMs = Math.floor(nowMs / size) * size;
  return { startMs, endMs: startMs + size };
}
