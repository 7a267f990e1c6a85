import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { domainFor, queueNameFor } from '../../src/engine/kinds/worker.js';

void describe('taskToDomain', () => {
  const none = (): boolean => false;
  const polled =
    (...queues: string[]) =>
    (q: string): boolean =>
      queues.includes(q);

  void it('takes the type’s entry, else "*", else no domain', () => {
    assert.equal(domainFor({ t: 'a', '*': 'b' }, 't'), 'a');
    assert.equal(domainFor({ '*': 'b' }, 't'), 'b');
    assert.equal(domainFor({ other: 'b' }, 't'), undefined);
    assert.equal(domainFor({ t: 'NO_DOMAIN', '*': 'b' }, 't'), undefined);
    assert.equal(domainFor({ t: ' ' }, 't'), undefined);
  });

  void it('a comma list: the first domain with a live worker, NO_DOMAIN skipped, else the last entry', () => {
    assert.equal(domainFor({ t: 'a,b,c' }, 't', none), 'c');
    assert.equal(domainFor({ t: 'a,b,c' }, 't', polled('b-t', 'c-t')), 'b');
    assert.equal(domainFor({ t: 'NO_DOMAIN,b' }, 't', polled('t', 'b-t')), 'b');
    assert.equal(domainFor({ t: 'a,NO_DOMAIN' }, 't', none), undefined);
    assert.equal(domainFor({ t: 'a, b' }, 't'), 'b', 'no liveness known: the last');
  });

  void it('names queues {domain}-{type} and -high', () => {
    assert.equal(queueNameFor('t', undefined, false), 't');
    assert.equal(queueNameFor('t', 'd', false), 'd-t');
    assert.equal(queueNameFor('t', 'd', true), 'd-t-high');
    assert.equal(queueNameFor('t', undefined, true), 't-high');
  });
});
