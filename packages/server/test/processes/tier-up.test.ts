import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { tierUpSooner } from '../../src/processes/tier-up-budget.js';

/**
 * A node sets V8's tier-up budget before its modules run (processes/tier-up-budget.ts), unless
 * whoever started it set the budget: then theirs holds.
 */
void describe("V8's tier-up budget", () => {
  void it('is set when nobody set it, and left alone when node was given one', () => {
    assert.equal(tierUpSooner([]), true);
    assert.equal(tierUpSooner(['--max-old-space-size=512', '--enable-source-maps']), true);
    // Flags that only begin alike are other flags.
    assert.equal(tierUpSooner(['--interrupt-budget-for-feedback-allocation=940']), true);
    assert.equal(tierUpSooner(['--interrupt-budget=100000']), false, 'in node’s arguments');
    assert.equal(tierUpSooner(['--interrupt_budget', '100000']), false, 'V8 takes _ for -');
  });

  void it("is main's first import, so it holds before any other module runs", () => {
    const main = readFileSync(fileURLToPath(new URL('../../src/main.js', import.meta.url)), 'utf8');
    const imports = main.split('\n').filter((line) => line.startsWith('import '));
    assert.equal(imports[0], "import './processes/tier-up.js';");
  });
});
