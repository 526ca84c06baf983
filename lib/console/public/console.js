// The failout console's front end: no build step, no framework. The server renders every piece
// (escaped); this script puts in what the event stream sends (the whole state in a `sections` event,
// then `patch` events with only the cards, groups, rows, fabric rows and small sections that changed: server.ts
// says the format), counts windows down, draws the traffic charts (uPlot) and runs the request form.
// Text from data is only ever set with textContent.
/* global document, window, EventSource, fetch, uPlot, requestAnimationFrame, setInterval */
'use strict';

(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
  const $ = (id) => document.getElementById(id);
  const live = $('live');
  // The history's filters, pages and exports (history.js, loaded first): its live rows' body is where
  // the stream's rows go, shown or set aside.
  const history = window.failoutHistory;
  const followed = new Map(); // requestId -> <li>
  // What Confirm may send: the request as checked ({ action, fields, requestId, key, version }), or null.
  // Any edit of the form after its Check takes it back (the server refuses a different one too).
  let pending = null;
  let formVersion = 0; // bumped by every edit of the form

  // ---- live sections -------------------------------------------------------------------------
  function focusKey(el) {
    if (!el || el === document.body) return null;
    if (el.id) return { id: el.id };
    if (el.dataset && el.dataset.act) return { act: el.dataset.act, cluster: el.dataset.cluster };
    if (el.dataset && el.dataset.fabricAct) return { fabricAct: el.dataset.fabricAct, fabric: el.dataset.fabric };
    return null;
  }
  function refocus(key) {
    if (!key) return;
    const el = key.id
      ? $(key.id)
      : key.fabricAct
        ? Array.from(document.querySelectorAll('[data-fabric-act]')).find((b) => b.dataset.fabricAct === key.fabricAct && b.dataset.fabric === key.fabric)
        : Array.from(document.querySelectorAll('[data-act]')).find((b) => b.dataset.act === key.act && b.dataset.cluster === key.cluster);
    if (el && document.activeElement !== el) el.focus();
  }
  // What the stream brought, for diagnostics and tests: events and bytes of each kind.
  const stats = { sections: 0, sectionsBytes: 0, patches: 0, patchBytes: 0 };

  // Everything the markup of an update holds is the server's render, where every value from data is
  // escaped (lib/console/page.ts).
  function applySections(sections) {
    const key = focusKey(document.activeElement);
    for (const [id, markup] of Object.entries(sections)) {
      const el = id === 'history-rows' ? history.live : $(id);
      if (el) el.innerHTML = markup;
    }
    afterUpdate(key);
    history.onLiveRows(undefined, true);
  }
  function afterUpdate(key) {
    refocus(key);
    tick();
    updateFollowed();
  }
  function parse(markup) {
    const template = document.createElement('template');
    template.innerHTML = markup;
    return template.content.firstElementChild;
  }
  // The keyed children of a container, by key: data attributes, never selectors built from data.
  const groupKey = (el) => (el.matches('section.group') ? el.dataset.key : undefined);
  const cardKey = (el) => el.dataset.key;
  const rowKey = (el) => (el.tagName === 'TR' ? (el.dataset.request === undefined ? '' : el.dataset.request) : undefined);
  function children(container, keyOf) {
    const byKey = new Map();
    for (const child of container.children) {
      const key = keyOf(child);
      if (key !== undefined) byKey.set(key, child);
    }
    return byKey;
  }
  // One keyed list's patch (lib/console/card-patches.ts): remove, upsert (replace in place, or put a
  // new one after the element it follows), then move only the elements out of `order`'s place, so the
  // others (and a selection in them) stay put.
  // `head`: the element the list follows in its container (null: the list starts it).
  function applyKeyed(container, patch, keyOf, replace, head) {
    const byKey = children(container, keyOf);
    for (const id of patch.remove || []) {
      const el = byKey.get(id);
      if (el) el.remove();
      byKey.delete(id);
    }
    for (const item of patch.upsert || []) {
      const next = parse(item.html);
      if (!next) continue;
      const el = byKey.get(item.id);
      const previous = item.after === null ? head : byKey.get(item.after);
      if (el) replace(el, next);
      else if (previous) previous.after(next);
      else if (item.after === null) container.prepend(next);
      else container.append(next);
      byKey.set(item.id, el && el.isConnected ? el : next);
    }
    if (!patch.order) return;
    let previous = head;
    for (const id of patch.order) {
      const el = byKey.get(id);
      if (!el) continue;
      const want = previous ? previous.nextElementSibling : container.firstElementChild;
      if (want !== el) {
        if (previous) previous.after(el);
        else container.prepend(el);
      }
      previous = el;
    }
  }
  const replaceWhole = (el, next) => el.replaceWith(next);
  // A group's update is its heading: its cards stay where they are.
  function replaceHeading(el, next) {
    const heading = el.querySelector(':scope > h2');
    const nextHeading = next.querySelector(':scope > h2');
    if (heading && nextHeading) heading.replaceWith(nextHeading);
  }
  function applyPatch(patch) {
    const key = focusKey(document.activeElement);
    for (const [id, markup] of Object.entries(patch.sections || {})) {
      const el = $(id);
      if (el) el.innerHTML = markup;
    }
    const clusters = $('clusters');
    if (patch.groups) applyKeyed(clusters, patch.groups, groupKey, replaceHeading, $('clusters-note'));
    if (patch.cards) {
      const groups = children(clusters, groupKey);
      for (const [group, cards] of Object.entries(patch.cards)) {
        const container = groups.get(group) && groups.get(group).querySelector(':scope > div.cards');
        if (container) applyKeyed(container, cards, cardKey, replaceWhole, null);
      }
    }
    if (patch.rows) applyKeyed(history.live, patch.rows, rowKey, replaceWhole, null);
    // The fabric table's rows and the fabric cards, keyed like the cards (data-key).
    if (patch.fabrics) {
      const table = $('fabric-table');
      const fabricCards = $('fabrics').querySelector('div.fabric-cards');
      if (patch.fabrics.rows && table && table.tBodies[0]) applyKeyed(table.tBodies[0], patch.fabrics.rows, cardKey, replaceWhole, null);
      if (patch.fabrics.cards && fabricCards) applyKeyed(fabricCards, patch.fabrics.cards, cardKey, replaceWhole, null);
    }
    afterUpdate(key);
    if (patch.rows || patch.records !== undefined) history.onLiveRows(patch.records);
  }

  function connect() {
    // The version the page was rendered from: the server sends the whole state only if it moved on.
    const version = document.querySelector('meta[name="console-version"]');
    const source = new EventSource('/events' + (version ? '?v=' + encodeURIComponent(version.getAttribute('content')) : ''));
    source.addEventListener('open', () => {
      live.textContent = 'Live updates: on.';
      live.className = 'live ok';
    });
    source.addEventListener('error', () => {
      live.textContent = 'Live updates lost: the console server is not answering. Reconnecting… (the page shows the last state it had)';
      live.className = 'live alert';
    });
    source.addEventListener('sections', (e) => {
      stats.sections++;
      stats.sectionsBytes += e.data.length;
      applySections(JSON.parse(e.data));
    });
    source.addEventListener('patch', (e) => {
      stats.patches++;
      stats.patchBytes += e.data.length;
      applyPatch(JSON.parse(e.data));
    });
    source.addEventListener('traffic', (e) => onTraffic(JSON.parse(e.data)));
  }

  // ---- countdowns ----------------------------------------------------------------------------
  function remaining(ms) {
    if (ms <= 0) return '0s';
    const units = [['d', 86400000], ['h', 3600000], ['m', 60000], ['s', 1000]];
    const parts = [];
    let rest = ms;
    for (const [unit, size] of units) {
      const n = Math.floor(rest / size);
      if (n > 0 || (unit === 's' && parts.length === 0)) parts.push(n + unit);
      rest -= n * size;
      if (parts.length === 2) break;
    }
    return parts.join(' ');
  }
  // Only the text node's data changes (never the element or its siblings): a selection elsewhere in
  // the card, or across this text, stays.
  function tick() {
    const now = Date.now();
    for (const t of document.querySelectorAll('time[data-until]')) {
      const text = remaining(Number(t.dataset.until) - now);
      const node = t.firstChild;
      if (node && node.nodeType === 3 && node.nextSibling === null) {
        if (node.data !== text) node.data = text;
      } else t.textContent = text;
    }
  }

  // ---- charts --------------------------------------------------------------------------------
  const charts = new Map(); // service -> { figure, targets: [], points: [], plot }
  const COLORS = ['#1f6feb', '#d9480f', '#2f9e44', '#ae3ec9', '#e8590c', '#0c8599', '#5c940d', '#c2255c'];

  function chartFor(service) {
    let chart = charts.get(service);
    if (chart) return chart;
    const figure = Array.from(document.querySelectorAll('figure.chart')).find((f) => f.dataset.service === service);
    if (!figure) return null;
    chart = { figure, targets: [], points: [], plot: null };
    charts.set(service, chart);
    return chart;
  }
  function draw(chart) {
    const targets = chart.targets;
    const xs = chart.points.map((p) => p.t);
    const data = [xs].concat(targets.map((name) => chart.points.map((p) => (p.rates[name] === undefined ? 0 : p.rates[name]))));
    const holder = chart.figure.querySelector('.plot');
    const width = Math.max(280, holder.clientWidth || 600);
    if (typeof uPlot === 'undefined') return;
    if (!chart.plot || chart.plotTargets !== targets.join('\n')) {
      if (chart.plot) chart.plot.destroy();
      const series = [{}].concat(targets.map((name, i) => ({ label: name, stroke: COLORS[i % COLORS.length], width: 2 })));
      // The y-axis starts at 0: a drop from 50 to 45 req/s must not look like traffic vanishing.
      const y = { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] };
      // The time axis in the zone the header's switch shows (time.js).
      const time = window.failoutTime;
      chart.plot = new uPlot({ width, height: 220, series, scales: { x: { time: true }, y }, axes: [time ? time.axis() : {}, { label: 'req/s' }], ...(time ? time.plotOptions() : {}) }, data, holder);
      chart.plotTargets = targets.join('\n');
    } else {
      chart.plot.setData(data);
      if (Math.abs(chart.plot.width - width) > 2) chart.plot.setSize({ width, height: 220 });
    }
    chart.figure.dataset.yMin = String(chart.plot.scales.y.min);
    const body = chart.figure.querySelector('table.legend tbody');
    const last = chart.points[chart.points.length - 1];
    body.replaceChildren();
    for (const name of targets) {
      const row = document.createElement('tr');
      row.dataset.target = name;
      const rate = last && last.rates[name] !== undefined ? last.rates[name] : 0;
      row.dataset.rate = String(rate);
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = name;
      const td = document.createElement('td');
      td.textContent = rate.toFixed(1) + ' req/s';
      row.append(th, td);
      body.append(row);
    }
    // Each target's health beside its rate (health.js; the texts come with the traffic points).
    if (window.failoutHealth) window.failoutHealth.legend(body, chart.health, targets);
  }
  function addPoint(chart, point) {
    chart.points.push(point);
    if (chart.points.length > 120) chart.points.shift();
    for (const name of Object.keys(point.rates)) if (!chart.targets.includes(name)) chart.targets.push(name);
    chart.targets.sort();
  }
  function onTraffic(message) {
    const chart = chartFor(message.service);
    if (!chart) return;
    const note = chart.figure.querySelector('.source-error');
    note.textContent = message.error ? 'Metrics not answering: ' + message.error : '';
    chart.health = message.health || {};
    if (message.point) addPoint(chart, message.point);
    draw(chart);
  }
  function initialCharts() {
    const initial = JSON.parse($('initial-traffic').textContent || '[]');
    for (const entry of initial) {
      const chart = chartFor(entry.service);
      if (!chart) continue;
      for (const point of entry.points) addPoint(chart, point);
      chart.health = entry.health || {};
      draw(chart);
    }
    window.addEventListener('resize', () => requestAnimationFrame(() => charts.forEach(draw)));
    // Another zone: every chart is made again with its time axis in it.
    if (window.failoutTime) {
      window.failoutTime.onChange(() =>
        charts.forEach((chart) => {
          chart.plotTargets = null;
          draw(chart);
        }),
      );
    }
  }

  // ---- the request form ----------------------------------------------------------------------
  const form = $('action-form');
  function showFields() {
    const action = $('f-action').value;
    for (const label of form.querySelectorAll('label[data-for]')) label.hidden = !label.dataset.for.split(' ').includes(action);
  }
  function formFields() {
    const value = (id) => {
      const v = $(id).value.trim();
      return v === '' ? undefined : v;
    };
    const action = $('f-action').value;
    const fields = { cluster: $('f-cluster').value.trim(), reason: value('f-reason'), by: value('f-by') };
    if (action === 'failout') Object.assign(fields, { peers: value('f-peers'), at: value('f-at'), share: value('f-share'), buckets: value('f-buckets'), ramp: value('f-ramp'), stopAlarms: value('f-alarms') });
    // Force is shown (and so sent) for every action the judgement can refuse; a restore it never refuses.
    if (action !== 'restore') fields.force = $('f-force').checked;
    if (action === 'failout' || action === 'extend') Object.assign(fields, { for: value('f-for'), until: value('f-until') });
    if (action === 'amend') Object.assign(fields, { stopAlarms: value('f-alarms'), removeStopAlarms: value('f-remove-alarms') });
    return { action, fields };
  }
  async function post(path, body) {
    const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body), credentials: 'same-origin' });
    let json;
    try {
      json = await response.json();
    } catch {
      json = { kind: 'error', message: 'the console answered HTTP ' + response.status };
    }
    return { status: response.status, json };
  }
  function showJudgement(kind, head, text, confirmLabel, changes) {
    const box = $('judgement');
    box.hidden = false;
    box.className = 'judgement ' + kind;
    const h = $('judgement-head');
    h.textContent = head;
    h.tabIndex = -1;
    $('judgement-text').textContent = text || '';
    const list = $('judgement-changes');
    list.replaceChildren();
    for (const line of changes || []) {
      const li = document.createElement('li');
      li.textContent = line;
      list.append(li);
    }
    $('judgement-diff').hidden = !changes || changes.length === 0;
    const confirm = $('confirm');
    confirm.hidden = !confirmLabel;
    confirm.disabled = false;
    if (confirmLabel) confirm.textContent = confirmLabel;
    h.focus();
  }
  // A refused input is marked where it is (aria-invalid, the message beside it), not only in the box.
  function clearFieldError() {
    for (const input of form.querySelectorAll('[aria-invalid="true"]')) {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
    }
    const note = $('field-error');
    if (note) note.remove();
  }
  function markField(id, message) {
    const input = $(id);
    if (!input) return;
    input.setAttribute('aria-invalid', 'true');
    const note = document.createElement('span');
    note.id = 'field-error';
    note.className = 'field-error';
    note.textContent = message;
    input.insertAdjacentElement('afterend', note);
    input.setAttribute('aria-describedby', 'field-error');
    input.focus();
  }
  function hideJudgement() {
    $('judgement').hidden = true;
    pending = null;
  }
  // The judgement on screen is for the form as it was: say so, and let nothing be sent until the next
  // Check. A Check still on its way is marked when its answer arrives (see the submit handler).
  function markStale() {
    pending = null;
    const box = $('judgement');
    if (box.hidden || box.classList.contains('busy') || box.classList.contains('stale')) return;
    box.classList.add('stale');
    $('judgement-head').textContent = 'Out of date: the form changed after this check; check again before sending. Below: the check of the form as it was.';
    const confirm = $('confirm');
    confirm.disabled = true;
    confirm.textContent = 'Check again to send';
  }
  // Every edit, typed or picked ('input' fires for text, selects and checkboxes alike; the script's
  // own changes to the form fire none).
  form.addEventListener('input', () => {
    formVersion++;
    markStale();
  });
  const keyOf = (request) => JSON.stringify([request.action, request.fields]);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const request = formFields();
    const version = formVersion;
    pending = null;
    clearFieldError();
    showJudgement('busy', 'Checking…', '', null, null);
    let result;
    try {
      result = await post('/api/check', request);
    } catch (err) {
      showJudgement('rejected', 'The console server did not answer: ' + err.message, '', null, null);
      return;
    }
    const r = result.json;
    if (r.kind === 'ready') {
      pending = { action: request.action, fields: request.fields, requestId: r.body.requestId, key: keyOf(request), version };
      const note = r.judged ? 'The worker would apply it now (dry run against ZooKeeper):' : 'Not judged against ZooKeeper (out of reach); the worker checks it when it arrives:';
      const changes = r.changes || (r.judged ? [] : ['Not compared with the failout in place: not judged now.']);
      showJudgement('ready', 'Request ' + r.body.requestId + ' (' + r.body.action + ' ' + r.body.cluster + '). ' + note, r.judgement, 'Confirm and send ' + r.body.action + ' ' + r.body.cluster, changes);
    } else if (r.kind === 'rejected') {
      showJudgement('rejected', 'Would be REJECTED (' + r.reason + '): nothing was sent.', r.message, null, null);
    } else {
      showJudgement('rejected', 'Not sent: ' + (r.message || r.reason || 'refused'), '', null, null);
      if (r.kind === 'invalid' && r.field) markField(r.field, r.message);
    }
    if (version !== formVersion) markStale();
  });
  $('confirm').addEventListener('click', async () => {
    if (!pending) return;
    // What is sent is the form as it is now, and only when it is the form that was checked.
    const now = formFields();
    if (keyOf(now) !== pending.key || formVersion !== pending.version) {
      markStale();
      return;
    }
    const request = pending;
    pending = null;
    $('confirm').hidden = true;
    let result;
    try {
      result = await post('/api/send', { action: now.action, fields: now.fields, requestId: request.requestId });
    } catch (err) {
      // The answer was lost, not necessarily the request: it may be in the queue already. Sent again,
      // it keeps its id (the server sends it at most once and says when it had); a new Check would
      // make another request.
      if (formVersion === request.version) {
        pending = request;
        showJudgement('rejected', 'The console server did not answer: ' + err.message + '. The request may have been sent: send it again with the same request id (it is sent at most once).', '', 'Send again (same request ' + request.requestId + ')', null);
      } else {
        showJudgement('rejected', 'The console server did not answer: ' + err.message + '. Request ' + request.requestId + ' may have been sent: see the history before checking again.', '', null, null);
      }
      return;
    }
    const r = result.json;
    if (r.kind === 'sent' || r.alreadySent === true) {
      // Sent (by this Confirm, or by the one whose answer was lost).
      hideJudgement();
      follow(r.requestId, request.action + ' ' + request.fields.cluster);
    } else if (r.kind === 'unavailable' && formVersion === request.version) {
      // The queue did not take it: the same request (same id) may be sent again.
      pending = request;
      showJudgement('rejected', 'Not sent: ' + r.message, '', 'Send again (same request ' + request.requestId + ')', null);
    } else if (r.kind === 'rejected') {
      showJudgement('rejected', 'REJECTED before sending (' + r.reason + '): nothing was sent.', r.message, null, null);
    } else if (r.kind === 'stale' && r.check && r.check.kind === 'ready' && formVersion === request.version) {
      // Judged otherwise than the Check showed (hosts came or went…): the new judgement, to confirm or not.
      pending = request;
      const c = r.check;
      showJudgement('ready changed', 'Not sent: ' + r.message + '. Request ' + c.body.requestId + ' (' + c.body.action + ' ' + c.body.cluster + ') as judged now:', c.judgement, 'Confirm and send ' + c.body.action + ' ' + c.body.cluster, c.changes || []);
    } else {
      showJudgement('rejected', 'Not sent: ' + (r.message || r.reason || 'refused'), '', null, null);
    }
  });
  $('cancel').addEventListener('click', () => {
    hideJudgement();
    $('check').focus();
  });
  $('f-action').addEventListener('change', showFields);

  // `list`: where the line goes (the request form's list by default; the fabric form has its own).
  function follow(requestId, what, list) {
    const li = document.createElement('li');
    li.dataset.request = requestId;
    li.className = 'following';
    li.textContent = 'Request ' + requestId + ' (' + what + '): sent; waiting for the worker…';
    (list || $('followed')).prepend(li);
    followed.set(requestId, { li, what });
    updateFollowed();
  }
  function updateFollowed() {
    for (const [requestId, entry] of followed) {
      // The live rows, whether shown or set aside while a filter or an older page is shown.
      const row = Array.from(history.live.querySelectorAll('tr[data-request]')).find((tr) => tr.dataset.request === requestId);
      if (!row) continue;
      const outcome = row.dataset.outcome;
      // By class, not position: a column added before it once made this read the outcome cell.
      const reasonCell = row.querySelector('td.rejection');
      entry.li.className = 'outcome-' + outcome;
      // A restore that removed an unreadable failout says so (the row's own words, escaped by the server).
      const unreadable = row.querySelector('.unreadable');
      entry.li.textContent = 'Request ' + requestId + ' (' + entry.what + '): ' + (outcome === 'rejected' ? 'REJECTED — ' + (reasonCell ? reasonCell.textContent : '') : outcome + (unreadable ? ' — ' + unreadable.textContent : '') + '.');
      followed.delete(requestId);
    }
  }

  // Buttons on the cluster cards fill the form (event delegation: the cards are re-rendered live).
  $('clusters').addEventListener('click', (e) => {
    const button = e.target.closest('button[data-act]');
    if (!button) return;
    // A fresh form for this cluster: every field back to its default (empty, force unticked, By the
    // console's requester), so nothing of an earlier request (peers, ramp, reason, force) is sent again.
    form.reset();
    formVersion++;
    $('f-action').value = button.dataset.act;
    $('f-cluster').value = button.dataset.cluster;
    showFields();
    hideJudgement();
    const first = { failout: 'f-peers', extend: 'f-for', amend: 'f-alarms' }[button.dataset.act] || 'f-reason';
    $('act').scrollIntoView({ block: 'start' });
    $(first).focus();
  });

  // What the fabric form (fabrics.js, loaded after this script) shares with this one.
  // `stats`: what the event stream brought so far (read by the console's browser tests and benchmarks).
  window.failoutConsole = Object.freeze({ post, follow, stats });

  showFields();
  history.start();
  initialCharts();
  setInterval(tick, 1000);
  connect();
})();
