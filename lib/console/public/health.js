// Health per target in the traffic charts' legends (issue 24, "health per target"): the server sends
// each target's texts with every traffic point (lib/console/health-view.ts: rounded, `—` for a number
// it could not measure, and why); this script only puts them in the legend console.js draws, as text.
// The cards' health is rendered on the server and arrives with the cards.
/* global document, window */
'use strict';

(function () {
  const own = (object, key) => object !== null && typeof object === 'object' && Object.prototype.hasOwnProperty.call(object, key);

  // One legend cell: `12 req/s, 0 % errors, p99 4.1 ms` and the word `unhealthy` past the threshold;
  // the reasons of unknown numbers as a title and, for screen readers, in words.
  function cell(texts) {
    const td = document.createElement('td');
    td.className = 'health';
    if (!texts) {
      td.textContent = '—';
      td.title = 'no health measured for this target';
      return td;
    }
    td.dataset.health = texts.verdict;
    td.textContent = [texts.rps, texts.errors, texts.p99].join(', ');
    if (texts.verdict === 'unhealthy') {
      const mark = document.createElement('strong');
      mark.className = 'unhealthy';
      mark.textContent = 'unhealthy';
      td.append(' ', mark);
    }
    if (Array.isArray(texts.reasons) && texts.reasons.length > 0) {
      td.title = texts.reasons.join('\n');
      const words = document.createElement('span');
      words.className = 'vh';
      words.textContent = ' (unknown: ' + texts.reasons.join('; ') + ')';
      td.append(words);
    }
    return td;
  }

  // Adds the health cell to each row of `body` (rows by target, console.js `draw`), and a row for each
  // target with health but no line in the chart.
  function legend(body, health, targets) {
    for (const row of body.children) row.append(cell(own(health, row.dataset.target) ? health[row.dataset.target] : null));
    for (const target of Object.keys(health || {}).sort()) {
      if (targets.includes(target)) continue;
      const row = document.createElement('tr');
      row.dataset.target = target;
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = target;
      const rate = document.createElement('td');
      rate.textContent = '—';
      rate.title = "not in this chart's counter";
      row.append(th, rate, cell(health[target]));
      body.append(row);
    }
  }

  window.failoutHealth = Object.freeze({ legend });
})();
