/** Every tool family, registered once. Adding a tool = adding its definition to its family's file. */
import { activityTools } from './activity.js';
import { agentTools } from './agents.js';
import { bashTools } from './bash.js';
import { commentTools, deleteCommentTool } from './comments.js';
import { communityTools, leaveCommunityTool } from './communities.js';
import { editTools } from './edit.js';
import { exportTools } from './export.js';
import { fileTools } from './files.js';
import { homeTools } from './home.js';
import { keyTools } from './keys.js';
import { messageTools } from './messages.js';
import { moderationTools } from './moderation.js';
import { deletePostTool, postTools } from './posts.js';
import { profileTools } from './profiles.js';
import { publishingTools } from './publishing.js';
import { ToolRegistry } from './registry.js';
import { searchTools } from './search.js';
import { shareTools } from './shares.js';
import { socialTools } from './social.js';
import { treeTools } from './tree-ops.js';
import { versionTools } from './versions.js';
import { writeFilesTools } from './write-files.js';

export function buildRegistry(): ToolRegistry {
  return new ToolRegistry().register(
    ...fileTools,
    ...writeFilesTools,
    ...editTools,
    ...treeTools,
    ...versionTools,
    ...bashTools,
    ...agentTools,
    ...exportTools,
    ...profileTools,
    // Before social: block's example ends the shares between the example agents (leave_share's example needs one).
    ...shareTools,
    ...publishingTools,
    ...homeTools,
    ...socialTools,
    ...activityTools,
    ...messageTools,
    // Communities: the examples create one, post, comment, vote, moderate, report, then delete and leave.
    ...communityTools,
    ...postTools,
    ...commentTools,
    ...moderationTools,
    // Search while the examples' files, posts and comments exist.
    ...searchTools,
    deleteCommentTool,
    deletePostTool,
    leaveCommunityTool,
    // Last: rotate_key's example rotates the calling key, which then only reads (suites replay every example in this order).
    ...keyTools,
  );
}
