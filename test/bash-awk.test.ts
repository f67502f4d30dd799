/** awk's bare `length` rewrite (src/gnu/awk/awk.ts): only the builtin, never inside strings, regexes or comments. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandBareLength, programIndex } from '../src/gnu/awk/awk.js';

describe('awk: bare length', () => {
  it('rewrites a bare length, leaves calls alone', () => {
    assert.equal(expandBareLength('length > 80'), 'length($0) > 80');
    assert.equal(expandBareLength('{print length, $1}'), '{print length($0), $1}');
    assert.equal(expandBareLength('length'), 'length($0)');
    assert.equal(expandBareLength('{ n = length; print n }'), '{ n = length($0); print n }');
    assert.equal(expandBareLength('{print length($2), length ($1), length(x)}'), '{print length($2), length ($1), length(x)}');
    assert.equal(expandBareLength('length\n{print}'), 'length($0)\n{print}');
  });

  it('leaves strings, regular expressions, comments and longer names alone', () => {
    assert.equal(expandBareLength('{ print "length is", length }'), '{ print "length is", length($0) }');
    assert.equal(expandBareLength('{ print "say \\"length\\"" }'), '{ print "say \\"length\\"" }');
    assert.equal(expandBareLength('/length/ { print length }'), '/length/ { print length($0) }');
    assert.equal(expandBareLength('$0 ~ /a[/]length/ { x = 1 }'), '$0 ~ /a[/]length/ { x = 1 }');
    assert.equal(expandBareLength('{ x = 1 } # length here\n{ print length }'), '{ x = 1 } # length here\n{ print length($0) }');
    assert.equal(expandBareLength('{ lengths = 1; mylength = 2; length_x = 3 }'), '{ lengths = 1; mylength = 2; length_x = 3 }');
  });

  it('tells division from a regex by what precedes the slash', () => {
    assert.equal(expandBareLength('{ print length / 2 }'), '{ print length($0) / 2 }');
    assert.equal(expandBareLength('{ print NF / 2, length }'), '{ print NF / 2, length($0) }');
    assert.equal(expandBareLength('{ print (NF) / length }'), '{ print (NF) / length($0) }');
    assert.equal(expandBareLength('{ print /length/ }'), '{ print /length/ }');
  });

  it('finds the program among the options; none with -f', () => {
    assert.equal(programIndex(['{print}', 'f']), 0);
    assert.equal(programIndex(['-F', ':', '-v', 'x=1', 'length', 'f']), 4);
    assert.equal(programIndex(['-F:', '-vx=1', 'length']), 2);
    assert.equal(programIndex(['--', 'length']), 1);
    assert.equal(programIndex(['-f', 'prog.awk', 'data']), -1);
    assert.equal(programIndex(['-fprog.awk']), -1);
    assert.equal(programIndex([]), -1);
  });
});
