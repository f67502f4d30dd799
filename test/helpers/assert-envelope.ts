import assert from 'node:assert/strict';
import type { CallResult } from './server.js';

/** Asserts the contract's envelope exactly: content[0] text holding JSON, isError only on errors. */
export function assertEnvelope(r: CallResult, expect: 'success' | 'error'): void {
  const keys = Object.keys(r.body ?? {}).sort();
  assert.deepEqual(keys, expect === 'success' ? ['content'] : ['content', 'isError'], `envelope keys: ${JSON.stringify(r.body)}`);
  assert.ok(Array.isArray(r.body.content) && r.body.content.length === 1, 'content has exactly one part');
  assert.equal(r.body.content[0].type, 'text');
  assert.equal(typeof r.body.content[0].text, 'string');
  const inner = JSON.parse(r.body.content[0].text);
  assert.equal(typeof inner, 'object');
  if (expect === 'success') {
    assert.equal(inner.success, true, `success inner: ${r.body.content[0].text.slice(0, 300)}`);
    assert.equal(inner.error, undefined);
  } else {
    assert.equal(r.body.isError, true);
    assert.deepEqual(Object.keys(inner), ['error']);
    assert.match(inner.error.code, /^[A-Z][A-Z_]+$/);
    assert.equal(typeof inner.error.message, 'string');
    assert.ok(inner.error.message.length > 10, 'message says something');
  }
  assert.ok(r.headers.get('x-request-id'), 'X-Request-Id header present');
}
