// The outcome trails on the cards (issue 24, item 4): a line saying why a card's last failout ended
// (lib/console/outcome-trail.ts) stays for an hour, or until the operator presses its OK. OK hides it
// in this browser only: the acknowledged trails' ids are kept in localStorage (each ending has its own
// id, so a later ending shows again); nothing is written on the server. Trails a patch brings
// (console.js) are hidden as they land when acknowledged before. Text from data is never built here.
/* global document, window, MutationObserver */
'use strict';

(function () {
  const KEY = 'failout.acknowledgedTrails';
  // Enough for every card's trail of the last hour several times over; the oldest go first.
  const MAX = 500;

  function acknowledged() {
    try {
      const list = JSON.parse(window.localStorage.getItem(KEY) || '[]');
      return Array.isArray(list) ? list : [];
    } catch {
      // Storage refused (private mode) or unreadable: every trail shows.
      return [];
    }
  }
  function hideAcknowledged(root) {
    const ids = new Set(acknowledged());
    if (ids.size === 0) return;
    const trails = root.matches && root.matches('p.trail') ? [root] : root.querySelectorAll('p.trail');
    for (const trail of trails) if (ids.has(trail.dataset.trail) && !trail.hidden) trail.hidden = true;
  }
  function acknowledge(id) {
    const list = acknowledged().filter((known) => known !== id);
    list.push(id);
    try {
      window.localStorage.setItem(KEY, JSON.stringify(list.slice(-MAX)));
    } catch {
      // Not kept: hidden until the card changes.
    }
  }

  document.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-trail-ok]');
    if (!button) return;
    const id = button.dataset.trailOk;
    acknowledge(id);
    const card = button.closest('article.card');
    for (const trail of document.querySelectorAll('p.trail')) if (trail.dataset.trail === id) trail.hidden = true;
    // The button is gone: focus goes to its card's heading link, not to the page's top.
    const link = card && card.querySelector('h3 a');
    if (link) link.focus();
  });
  const clusters = document.getElementById('clusters');
  if (clusters) {
    new MutationObserver((records) => {
      for (const record of records) for (const node of record.addedNodes) if (node.nodeType === 1) hideAcknowledged(node);
    }).observe(clusters, { childList: true, subtree: true });
  }
  hideAcknowledged(document);
})();
