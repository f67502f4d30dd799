/** Every tool family, registered once. Adding a tool = adding its definition to its family's file. */
import { agentTools } from './agents.js';
import { editTools } from './edit.js';
import { fileTools } from './files.js';
import { ToolRegistry } from './registry.js';

export function buildRegistry(): ToolRegistry {
  return new ToolRegistry().register(...fileTools, ...editTools, ...agentTools);
}
