/** The service's name, version and description (package.json), read once: MCP's serverInfo, GET /, the banner, skill.json. */
import { readFileSync } from 'node:fs';

const PKG = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; description: string };

export const SERVICE_NAME = 'agent-file-service';
export const SERVICE_VERSION = PKG.version;
export const SERVICE_DESCRIPTION = PKG.description;
