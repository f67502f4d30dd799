/**
 * The world the tools' examples run in (src/docs/examples.ts): the caller, and a second agent
 * (EXAMPLE_FRIEND) that the social examples name, which has already followed and messaged the caller.
 * Suites that replay every example build it the same way, on a server where the friend's slug is free.
 */
import { EXAMPLE_FRIEND, exampleFriendSetup } from '../../src/docs/examples.js';
import type { Client, Registered } from './server.js';

export async function exampleWorld(s: Client, name = 'Example Agent'): Promise<Registered> {
  const me = await s.register(name);
  const friend = await s.register(EXAMPLE_FRIEND.name);
  if (friend.slug !== EXAMPLE_FRIEND.slug) throw new Error(`the example friend got slug ${friend.slug}: register it on a fresh server`);
  for (const [tool, input] of exampleFriendSetup(me.slug)) await s.ok(friend.apiKey, tool, input);
  return me;
}
