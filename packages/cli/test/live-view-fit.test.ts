import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { fitToScreen } from '../src/live-view.js';
import { visibleLength } from '../src/output.js';

describe('live view frames fit the terminal (so they can be redrawn in place)', () => {
  it('cuts long lines to the width, keeping colour codes whole', () => {
    const [line] = fitToScreen(
      ['header \u001b[32mGREEN\u001b[0m and a long tail of text here'],
      20,
      10,
      'ID',
    );
    assert.equal(visibleLength(line!), 19);
    assert.ok(line!.includes('\u001b[32mGREEN\u001b[0m'));
    assert.ok(line!.endsWith('…\u001b[0m'));
  });

  it('keeps the header and the latest lines of a tall tree, saying how many are hidden', () => {
    const frame = ['header', ...Array.from({ length: 30 }, (_, i) => `line ${i}`)];
    const fitted = fitToScreen(frame, 80, 10, 'RUN-1');
    assert.equal(fitted.length, 9);
    assert.equal(fitted[0], 'header');
    assert.equal(fitted[1], '  … 23 more (baton show RUN-1)');
    assert.equal(fitted.at(-1), 'line 29');
  });

  it('leaves a frame that fits alone', () => {
    assert.deepEqual(fitToScreen(['a', 'b'], 80, 24, 'ID'), ['a', 'b']);
  });
});
