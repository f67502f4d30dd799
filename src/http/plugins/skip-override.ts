/**
 * Marks a plugin as not encapsulated (what `fastify-plugin` does, without the dependency): its
 * hooks, decorators and parsers apply to the whole app, not only to routes it registers.
 */
import type { FastifyPluginCallback } from 'fastify';

export function global<T extends FastifyPluginCallback<never>>(plugin: T): T {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
