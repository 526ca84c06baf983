// The failout console's history (issue 24, item 5): filters, pages and exports, answered by the
// server (GET /api/history filters and pages every record; lib/console/history-routes.ts). Loaded
// before console.js, which puts the event stream's rows into `failoutHistory.live` and tells it when
// they or the record count change. Text from data is only ever set with textContent, or as the
// server's render, where every value from data is escaped.
/* global document, window, fetch, setTimeout, clearTimeout, URLSearchParams */
'use strict';

// The live rows (the newest page, kept current by the event stream) are the table's body while no
// filter and no older page is asked for. Otherwise the server answers the query (GET /api/history:
// it filters and pages every record; lib/console/history-routes.ts) and its rows are shown in a
// second body in the same place, under the same id; the live body is set aside and still patched.
window.failoutHistory = (function () {
  const $ = (id) => document.getElementById(id);
  const live = $('history-rows');
  const results = document.createElement('tbody');
  results.className = 'history-results';
  const summary = $('history-summary');
  const filters = $('history-filters');
  const buttons = { newest: $('h-newest'), newer: $('h-newer'), older: $('h-older'), oldest: $('h-oldest') };
  // What is shown: the filter's query string ('' none) and the page's position ('' the newest page,
  // else 'before=…', 'after=…' or 'oldest=1'); an answer is taken only for the latest query.
  let filter = '';
  let position = '';
  let cursors = { newer: null, older: null };
  let asked = 0;
  let total = null;
  let timer = null;

  function filterQuery() {
    const params = new URLSearchParams();
    for (const name of ['cluster', 'by', 'outcome', 'action', 'from', 'to']) {
      const value = filters.elements[name].value.trim();
      if (value !== '') params.set(name, value);
    }
    return params.toString();
  }
  const isLive = () => filter === '' && position === '';
  function show(body) {
    const shown = isLive() ? live : results;
    const hidden = shown === live ? results : live;
    if (hidden.isConnected) {
      hidden.removeAttribute('id');
      hidden.replaceWith(shown);
    }
    shown.id = 'history-rows';
    if (body !== undefined) shown.innerHTML = body;
  }
  function setButtons() {
    const liveRows = live.querySelectorAll('tr[data-request]');
    const olderCursor = isLive() ? (total !== null && total > liveRows.length && liveRows.length > 0 ? cursorOf(liveRows[liveRows.length - 1]) : null) : cursors.older;
    const older = olderCursor === null ? null : 'before=' + encodeURIComponent(olderCursor);
    buttons.newest.disabled = position === '';
    buttons.newer.disabled = isLive() || cursors.newer === null;
    buttons.older.disabled = older === null;
    buttons.oldest.disabled = older === null;
    buttons.older.dataset.position = older || '';
  }
  const cursorOf = (row) => row.dataset.at + ':' + row.dataset.request;
  function liveSummary() {
    const shown = live.querySelectorAll('tr[data-request]').length;
    if (total === null) summary.textContent = '';
    else if (total === 0) summary.textContent = 'No request records yet.';
    else summary.textContent = 'Records 1–' + shown.toLocaleString('en-US') + ' of ' + total.toLocaleString('en-US') + ' (the newest, live).';
  }
  // While the server's answer is on its way: the live rows that match the filter's text fields (the
  // answer, which covers every record, replaces them).
  function instant() {
    const value = (name) => filters.elements[name].value.trim().toLowerCase();
    const cluster = value('cluster');
    const by = value('by');
    const outcome = value('outcome');
    const action = value('action');
    const rows = Array.from(live.querySelectorAll('tr[data-request]')).filter((row) =>
      (!cluster || (row.dataset.cluster || row.dataset.fabric).toLowerCase().includes(cluster)) && (!by || row.dataset.by.toLowerCase().includes(by)) && (!outcome || row.dataset.outcome === outcome) && (!action || row.dataset.action === action),
    );
    results.replaceChildren(...rows.map((row) => row.cloneNode(true)));
  }
  async function ask(extra) {
    const mine = ++asked;
    const query = [filter, extra].filter((part) => part !== '').join('&');
    let answer;
    try {
      const response = await fetch('/api/history' + (query === '' ? '' : '?' + query), { credentials: 'same-origin' });
      answer = await response.json();
      if (!response.ok) throw new Error(answer.message || 'HTTP ' + response.status);
    } catch (err) {
      if (mine !== asked) return;
      summary.textContent = 'The history could not be read: ' + err.message;
      summary.className = 'alert';
      return;
    }
    if (mine !== asked) return;
    summary.className = '';
    total = answer.total;
    addActions(answer.actions);
    if (isLive()) {
      liveSummary();
    } else {
      cursors = { newer: answer.newer, older: answer.older };
      // The server's render: every value from data in it is escaped (lib/console/history-view.ts).
      show(answer.rows);
      summary.innerHTML = answer.summary;
    }
    setButtons();
  }
  function addActions(actions) {
    const select = $('h-action');
    const known = new Set(Array.from(select.options).map((o) => o.value));
    for (const action of actions || []) {
      if (known.has(action)) continue;
      const option = document.createElement('option');
      option.value = action;
      option.textContent = action;
      select.append(option);
    }
  }
  function exports() {
    $('h-csv').href = '/api/history.csv' + (filter === '' ? '' : '?' + filter);
    $('h-json').href = '/api/history.json' + (filter === '' ? '' : '?' + filter);
  }
  let recount = null;
  function go(nextPosition) {
    // A re-ask a live patch scheduled is for the page shown before: the page asked for now replaces it.
    clearTimeout(recount);
    position = nextPosition;
    cursors = { newer: null, older: null };
    if (isLive()) {
      show();
      liveSummary();
      setButtons();
      return ask('limit=0');
    }
    return ask(position);
  }
  filters.addEventListener('input', () => {
    filter = filterQuery();
    exports();
    position = '';
    // Any answer still on its way is for an earlier filter: it is dropped.
    asked++;
    if (filter !== '') instant();
    show();
    clearTimeout(timer);
    // A burst of keystrokes is one query.
    timer = setTimeout(() => go(''), filter === '' ? 0 : 150);
  });
  filters.addEventListener('submit', (e) => e.preventDefault());
  buttons.newest.addEventListener('click', () => go(''));
  buttons.newer.addEventListener('click', () => go(cursors.newer === null ? '' : 'after=' + encodeURIComponent(cursors.newer)));
  buttons.older.addEventListener('click', () => go(buttons.older.dataset.position));
  buttons.oldest.addEventListener('click', () => go('oldest=1'));

  return Object.freeze({
    live,
    // New live rows or a new count (`count`, from a patch). After a whole `sections` event (`whole`),
    // which may follow a gap, the count is asked for. On the live page the count moves; on a
    // filter's newest page the query is asked again (a new record may match); an older page stays
    // as it is (its cursor does not move).
    onLiveRows(count, whole) {
      if (count !== undefined) total = count;
      if (isLive()) {
        liveSummary();
        setButtons();
        if (!whole) return;
      } else if (position !== '') return;
      clearTimeout(recount);
      // Asked only if the same page is still shown then (a click or a filter since has asked its own).
      const shown = filter + '|' + position;
      recount = setTimeout(() => {
        if (filter + '|' + position === shown) void (isLive() ? ask('limit=0') : ask(''));
      }, 300);
    },
    start() {
      exports();
      setButtons();
      return ask('limit=0');
    },
  });
})();
