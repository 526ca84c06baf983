// The failout console's drills (issue 24, item 7): "Run now" on a drill's card asks the server to
// decide the run as the drill runner would (`/api/drill/check`) and shows the exact request it would
// send; Confirm sends that request by its id only (`/api/drill/send`: the server sends the message it
// made and kept). The cards are the server's render, swapped in by the live patches; a history the
// operator opened stays open across them. Text from data is only ever set with textContent. Loaded
// after console.js.
/* global document, window, MutationObserver */
'use strict';
(function () {
  const api = window.failoutConsole;
  const $ = (id) => document.getElementById(id);
  const section = $('drills');
  if (!api || !section) return;
  // What Confirm may send: { requestId, what } of the last ready Check, or null.
  let pending = null;

  function show(kind, head, body, confirmLabel) {
    const box = $('drill-confirm');
    box.hidden = false;
    box.className = 'judgement ' + kind;
    const h = $('dc-head');
    h.textContent = head;
    h.tabIndex = -1;
    $('dc-what').hidden = !body;
    $('dc-body').hidden = !body;
    $('dc-body').textContent = body || '';
    const confirm = $('dc-confirm');
    confirm.hidden = !confirmLabel;
    confirm.disabled = false;
    if (confirmLabel) confirm.textContent = confirmLabel;
    h.focus();
  }
  function hide() {
    $('drill-confirm').hidden = true;
    pending = null;
  }

  // A ready decision (a Check's, or the one a Confirm found changed: `prefix` says so) with its Confirm.
  function showReady(r, kind, prefix) {
    const what = 'run of drill ' + r.drill;
    pending = { requestId: r.requestId, what };
    const decision =
      r.decision === 'skipped'
        ? 'The runner would NOT start it now (' + r.skipReason + ': ' + r.detail + '); Confirm records the run as skipped.'
        : 'The runner would start it now: a ' + r.action + ' request.';
    show(kind, prefix + 'Request ' + r.requestId + ' (' + what + '). ' + decision + ' CLI: ' + r.cli, r.body, 'Confirm and send: ' + what);
  }

  async function check(drill) {
    pending = null;
    show('busy', 'Deciding a run of drill ' + drill + ' now, as the drill runner would…', null, null);
    let result;
    try {
      result = await api.post('/api/drill/check', { drill });
    } catch (err) {
      show('rejected', 'The console server did not answer: ' + err.message, null, null);
      return;
    }
    const r = result.json;
    if (r.kind === 'ready') {
      showReady(r, 'ready', '');
    } else {
      show('rejected', 'Not sent: ' + (r.message || r.reason || 'refused'), null, null);
    }
  }

  section.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-drill-run]');
    if (!button) return;
    void check(button.dataset.drillRun);
  });

  $('dc-confirm').addEventListener('click', async () => {
    if (!pending) return;
    const sending = pending;
    pending = null;
    const confirm = $('dc-confirm');
    confirm.disabled = true;
    let result;
    try {
      result = await api.post('/api/drill/send', { requestId: sending.requestId });
    } catch (err) {
      pending = sending;
      show('rejected', 'The console server did not answer: ' + err.message + '. The request may have been sent: confirm again, with the same request id (it is sent at most once).', $('dc-body').textContent, 'Confirm again (same request ' + sending.requestId + ')');
      return;
    }
    const r = result.json;
    if (r.kind === 'sent' || r.alreadySent === true) {
      // Sent (by this Confirm, or by the one whose answer was lost).
      hide();
      api.follow(r.requestId, sending.what, $('drill-followed'));
    } else if (r.kind === 'unavailable') {
      pending = sending;
      show('rejected', 'Not sent: ' + r.message, $('dc-body').textContent, 'Confirm again');
    } else if (r.kind === 'stale' && r.check && r.check.kind === 'ready') {
      // Decided otherwise than the Check showed (an alarm fired…): the run decided now, to confirm or not.
      showReady(r.check, 'ready changed', 'Not sent: ' + r.message + '. ');
    } else {
      show('rejected', 'Not sent: ' + (r.message || 'refused'), null, null);
    }
  });
  $('dc-cancel').addEventListener('click', hide);

  // The live patches replace the section's markup: reopen the histories the operator had open.
  const open = new Set();
  // Taken at the click on its summary (before the browser opens or closes it): the toggle event comes
  // later, as a task, and never reaches the section when a patch replaced the element in between.
  section.addEventListener('click', (e) => {
    const summary = e.target.closest && e.target.closest('details.drill-history > summary');
    if (!summary) return;
    const details = summary.parentElement;
    if (details.open) open.delete(details.dataset.drill);
    else open.add(details.dataset.drill);
  });
  section.addEventListener(
    'toggle',
    (e) => {
      const details = e.target;
      if (!details.matches || !details.matches('details.drill-history')) return;
      if (details.open) open.add(details.dataset.drill);
      else open.delete(details.dataset.drill);
    },
    true,
  );
  new MutationObserver(() => {
    for (const details of section.querySelectorAll('details.drill-history')) {
      if (open.has(details.dataset.drill) && !details.open) details.open = true;
    }
  }).observe(section, { childList: true });
})();
