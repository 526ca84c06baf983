// The console's keyboard shortcuts (issue 24, item 8), as the page lists them under "Keyboard
// shortcuts" (lib/console/habits-view.ts `SHORTCUTS`; the browser test presses every one). None fires
// while the focus is in a field (input, textarea, select, an editable element) or with Ctrl, Alt or
// Meta held: typing `t` in the reason must stay a `t`. Loaded last.
/* global document, window */
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  // A section's heading takes the focus (and the view) so the next Tab starts there.
  function goTo(id) {
    const heading = $(id);
    if (!heading) return;
    if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
    heading.scrollIntoView({ block: 'start' });
    heading.focus();
  }
  // The open checks' Cancel buttons: the request form's, the fabric form's, the drill's run-now.
  const CHECKS = [
    ['judgement', 'cancel'],
    ['fabric-judgement', 'e-cancel'],
    ['drill-confirm', 'dc-cancel'],
  ];
  function escape() {
    let closed = false;
    for (const [box, cancel] of CHECKS) {
      if ($(box) && !$(box).hidden && $(cancel)) {
        $(cancel).click();
        closed = true;
      }
    }
    if (closed) return;
    const find = $('find');
    if (find && Array.from(find.elements).some((el) => el.name && el.value !== '')) find.reset();
  }
  const ACTIONS = {
    '/': () => {
      const input = $('q-cluster');
      if (input) input.focus();
    },
    t: () => window.failoutTime && window.failoutTime.toggle(),
    f: () => goTo('fabrics-h'),
    d: () => goTo('drills-h'),
    a: () => goTo('act-h'),
    h: () => goTo('history-h'),
    '?': () => goTo('keys-h'),
    Escape: escape,
  };
  function typing(target) {
    if (!target || !target.closest) return false;
    return target.isContentEditable || target.closest('input, textarea, select, [contenteditable]') !== null;
  }

  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.isComposing || e.ctrlKey || e.altKey || e.metaKey) return;
    const action = Object.prototype.hasOwnProperty.call(ACTIONS, e.key) ? ACTIONS[e.key] : undefined;
    if (!action || typing(e.target)) return;
    e.preventDefault();
    action();
  });
})();
