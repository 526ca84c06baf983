// The failout console's fabric form (issue 23): the Evacuate… and Restore… buttons on the fabric cards
// fill it; Check shows the worker's judgement of the request (for an evacuation, the plan: stages,
// cluster → peers, the projected load on every receiving cluster); Confirm sends the checked request
// by its id only (the server sends the body it checked and stored). Any edit after Check takes the
// judgement back. Text from data is only ever set with textContent. Loaded after console.js.
/* global document, window */
'use strict';

(function () {
  const api = window.failoutConsole;
  const $ = (id) => document.getElementById(id);
  const form = $('fabric-form');
  if (!api || !form) return;
  // What Confirm may send: { requestId, version, what } of the last ready Check, or null.
  let pending = null;
  let version = 0; // bumped by every edit of the form

  function showFields() {
    const action = $('e-action').value;
    for (const label of form.querySelectorAll('label[data-for]')) label.hidden = !label.dataset.for.split(' ').includes(action);
  }
  function request() {
    const value = (id) => {
      const v = $(id).value.trim();
      return v === '' ? undefined : v;
    };
    const action = $('e-action').value;
    const fields = { reason: value('e-reason'), by: value('e-by') };
    if (action === 'evacuate') {
      Object.assign(fields, {
        to: value('e-to'),
        for: value('e-for'),
        until: value('e-until'),
        stages: value('e-stages'),
        stageClusters: value('e-stage-clusters'),
        gateAlarms: value('e-gates'),
        stopAlarms: value('e-alarms'),
        exclude: value('e-exclude'),
        force: $('e-force').checked,
      });
    }
    return { action, fabric: $('e-fabric').value.trim(), fields };
  }

  // ---- the plan, built element by element ----------------------------------------------------
  function element(tag, text, className) {
    const el = document.createElement(tag);
    if (text !== undefined) el.textContent = text;
    if (className) el.className = className;
    return el;
  }
  function row(cells, attributes) {
    const tr = document.createElement('tr');
    for (const [key, value] of Object.entries(attributes || {})) tr.dataset[key] = value;
    tr.append(...cells.map((c) => element('td', String(c))));
    return tr;
  }
  function showPlan(plan) {
    const box = $('fj-plan');
    const stages = $('fj-stages');
    const clusters = $('fj-clusters').querySelector('tbody');
    const receivers = $('fj-receivers').querySelector('tbody');
    stages.replaceChildren();
    clusters.replaceChildren();
    receivers.replaceChildren();
    box.hidden = !plan;
    if (!plan) return;
    $('fj-summary').textContent = plan.summary + '; from ' + plan.from + ' until ' + plan.until + '.';
    for (const s of plan.stages) {
      const gates = s.gateAlarms.length > 0 ? '; gate alarms: ' + s.gateAlarms.join(', ') : '';
      stages.append(element('li', 'stage ' + s.label + ': ' + s.clusters.join(', ') + ' — out from ' + s.offlineAt + ', fully out ' + s.fullyOutAt + ', back at ' + s.onlineAt + gates));
    }
    for (const c of plan.clusters) {
      const peers = c.peers.length === 0 ? 'none' : c.peers.map((p) => p.cluster + ' (' + p.weight + ')').join(', ');
      clusters.append(row([c.cluster, c.service, c.stage, c.hosts, peers + (c.replaces ? '; replaces the failout of request ' + c.replaces : '')], { cluster: c.cluster }));
    }
    for (const r of plan.receivers) {
      const tr = row([r.cluster, r.fabric, r.service, r.hosts, '×' + r.before, '×' + r.after + (r.over ? ' OVER THE LIMIT' : '')], { cluster: r.cluster, after: String(r.after) });
      if (r.over) tr.className = 'over';
      receivers.append(tr);
    }
    $('fj-receivers-h').textContent = 'Receiving clusters: projected load per host, × their own load (limit ×' + plan.limit + ')';
    $('fj-receivers').hidden = plan.receivers.length === 0;
  }

  function show(kind, head, answer, confirmLabel) {
    const box = $('fabric-judgement');
    box.hidden = false;
    box.className = 'judgement ' + kind;
    const h = $('fj-head');
    h.textContent = head;
    h.tabIndex = -1;
    showPlan(answer && answer.plan);
    const notes = $('fj-notes');
    notes.replaceChildren();
    for (const note of (answer && answer.notes) || []) notes.append(element('li', note));
    if (answer && answer.forced) notes.append(element('li', answer.forced, 'forced'));
    const text = (answer && (answer.judgement || answer.message)) || '';
    $('fj-text').textContent = text;
    $('fj-details').hidden = text === '';
    // Without a plan, the text is the judgement itself: open it.
    $('fj-details').open = !(answer && answer.plan);
    const confirm = $('e-confirm');
    confirm.hidden = !confirmLabel;
    confirm.disabled = false;
    if (confirmLabel) confirm.textContent = confirmLabel;
    h.focus();
  }
  function hide() {
    $('fabric-judgement').hidden = true;
    pending = null;
  }
  function markStale() {
    pending = null;
    const box = $('fabric-judgement');
    if (box.hidden || box.classList.contains('busy') || box.classList.contains('stale')) return;
    box.classList.add('stale');
    $('fj-head').textContent = 'Out of date: the form changed after this check; check again before sending. Below: the check of the form as it was.';
    const confirm = $('e-confirm');
    confirm.disabled = true;
    confirm.textContent = 'Check again to send';
  }
  form.addEventListener('input', () => {
    version++;
    markStale();
  });
  $('e-action').addEventListener('change', showFields);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const asked = request();
    const at = version;
    pending = null;
    show('busy', 'Checking…', null, null);
    let result;
    try {
      result = await api.post('/api/fabric/check', asked);
    } catch (err) {
      show('rejected', 'The console server did not answer: ' + err.message, null, null);
      return;
    }
    const r = result.json;
    const what = (r.action === 'restoreFabric' ? 'restore fabric ' : 'evacuate fabric ') + r.fabric;
    if (r.kind === 'ready') {
      pending = { requestId: r.requestId, version: at, what };
      const note = r.judged
        ? r.action === 'evacuate'
          ? 'The worker would apply this plan now (judged against ZooKeeper by its own rules):'
          : 'The worker would apply it now:'
        : 'Not judged against ZooKeeper (out of reach); the worker judges it when it arrives:';
      show('ready', 'Request ' + r.requestId + ' (' + what + '). ' + note, r, 'Confirm and send: ' + what);
    } else if (r.kind === 'rejected') {
      show('rejected', 'Would be REJECTED (' + r.reason + '): nothing was sent.', r, null);
    } else {
      show('rejected', 'Not sent: ' + (r.message || r.reason || 'refused'), null, null);
    }
    if (at !== version) markStale();
  });

  $('e-confirm').addEventListener('click', async () => {
    if (!pending || pending.version !== version) {
      markStale();
      return;
    }
    const sending = pending;
    pending = null;
    $('e-confirm').hidden = true;
    let result;
    try {
      // The request id only: the server sends the body it checked and showed.
      result = await api.post('/api/fabric/send', { requestId: sending.requestId });
    } catch (err) {
      // The answer was lost, not necessarily the request: sent again, it keeps its id (the server sends
      // it at most once and says when it had); a new Check would make another request.
      if (sending.version === version) {
        pending = sending;
        show('rejected', 'The console server did not answer: ' + err.message + '. The request may have been sent: send it again with the same request id (it is sent at most once).', null, 'Send again (same request ' + sending.requestId + ')');
      } else {
        show('rejected', 'The console server did not answer: ' + err.message + '. Request ' + sending.requestId + ' may have been sent: see the history before checking again.', null, null);
      }
      return;
    }
    const r = result.json;
    if (r.kind === 'sent' || r.alreadySent === true) {
      // Sent (by this Confirm, or by the one whose answer was lost).
      hide();
      api.follow(r.requestId, sending.what, $('fabric-followed'));
    } else if (r.kind === 'unavailable' && sending.version === version) {
      pending = sending;
      show('rejected', 'Not sent: ' + r.message, null, 'Send again (same request ' + sending.requestId + ')');
    } else if (r.kind === 'rejected') {
      show('rejected', 'REJECTED before sending (' + r.reason + '): nothing was sent.', r, null);
    } else if (r.kind === 'stale' && r.check && r.check.kind === 'ready' && sending.version === version) {
      // Judged otherwise than the Check showed (hosts came or went…): the new judgement, to confirm or not.
      pending = sending;
      show('ready changed', 'Not sent: ' + r.message + '. Request ' + sending.requestId + ' (' + sending.what + '), the plan now:', r.check, 'Confirm and send: ' + sending.what);
    } else {
      show('rejected', 'Not sent: ' + (r.message || r.reason || 'refused'), null, null);
    }
  });
  $('e-cancel').addEventListener('click', () => {
    hide();
    $('e-check').focus();
  });

  // The buttons on the fabric cards (re-rendered live: event delegation) start a fresh form.
  $('fabrics').addEventListener('click', (e) => {
    const button = e.target.closest('button[data-fabric-act]');
    if (!button) return;
    form.reset();
    version++;
    $('e-action').value = button.dataset.fabricAct;
    $('e-fabric').value = button.dataset.fabric;
    showFields();
    hide();
    $('fabric-act').scrollIntoView({ block: 'start' });
    $(button.dataset.fabricAct === 'evacuate' ? 'e-to' : 'e-reason').focus();
  });

  showFields();
})();
