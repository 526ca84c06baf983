// The console's time zone (issue 24, item 8): one switch in the header shows every time of the page in
// UTC (the default) or in the browser's local zone. The server renders each instant as a
// `<time datetime="ISO" data-clock="epoch ms">` whose text is the ISO time (lib/console/clock-time.ts);
// this script rewrites that text in the chosen zone, `23:03:48` today and `2 Dec 23:03` on another day
// (`2 Dec 2025 23:03` in another year), with the whole instant in its title. Times that arrive later
// (a patch, a history page, a drill section) are rewritten as they land: a MutationObserver sees them
// before the browser paints. The choice is kept in localStorage. console.js asks `failoutTime` for the
// charts' time axis and draws them again on a change. The pure part is exported under CommonJS for its
// unit test. Text is only ever set as text.
/* global document, window, MutationObserver, setInterval, uPlot */
'use strict';

(function () {
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const formatters = new Map();
  // `timeZone`: 'UTC', or undefined for the local zone (or any IANA name, for the unit test).
  function partsOf(ms, timeZone) {
    const key = timeZone || '';
    let format = formatters.get(key);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
      formatters.set(key, format);
    }
    const parts = {};
    for (const part of format.formatToParts(new Date(ms))) parts[part.type] = part.value;
    return { year: parts.year, month: MONTHS[Number(parts.month) - 1], day: String(Number(parts.day)), hms: parts.hour + ':' + parts.minute + ':' + parts.second, hm: parts.hour + ':' + parts.minute };
  }
  // `ms` as the page shows it in `timeZone`, seen at `now`: the time of day when it is `now`'s day
  // there, else the day and the minute (and the year when not `now`'s). No milliseconds.
  function formatClock(ms, timeZone, now) {
    const at = partsOf(ms, timeZone);
    const today = partsOf(now, timeZone);
    if (at.year === today.year && at.month === today.month && at.day === today.day) return at.hms;
    return at.day + ' ' + at.month + (at.year === today.year ? '' : ' ' + at.year) + ' ' + at.hm;
  }
  // The whole instant, for a title: `2 Dec 2026 23:03:48 UTC`.
  function formatFull(ms, timeZone, label) {
    const at = partsOf(ms, timeZone);
    return at.day + ' ' + at.month + ' ' + at.year + ' ' + at.hms + ' ' + label;
  }
  // `UTC`, or `local, UTC+05:30` for a zone `offsetMinutes` east of UTC (Date's getTimezoneOffset is west).
  function zoneLabel(zone, offsetMinutes) {
    if (zone !== 'local') return 'UTC';
    const sign = offsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(offsetMinutes);
    const pad = (n) => String(n).padStart(2, '0');
    return 'local, UTC' + sign + pad(Math.floor(abs / 60)) + ':' + pad(abs % 60);
  }
  // The chart's tick labels: the minute, or the second when the ticks are closer than a minute.
  function tickLabels(splitsSeconds, timeZone) {
    const fine = splitsSeconds.some((s) => s % 60 !== 0);
    return splitsSeconds.map((s) => (s === null ? '' : fine ? partsOf(s * 1000, timeZone).hms : partsOf(s * 1000, timeZone).hm));
  }

  if (typeof module === 'object' && module.exports) {
    module.exports = { formatClock, formatFull, zoneLabel, tickLabels };
    return;
  }

  const KEY = 'failout.timeZone';
  const listeners = [];
  let zone = 'utc';
  try {
    if (window.localStorage.getItem(KEY) === 'local') zone = 'local';
  } catch {
    // Storage refused (private mode): UTC, and the switch still works for this page.
  }
  const timeZone = () => (zone === 'local' ? undefined : 'UTC');
  const label = () => zoneLabel(zone, -new Date().getTimezoneOffset());

  // Only the text node's data changes when it can (as console.js's countdowns): a selection stays.
  function setText(el, text) {
    const node = el.firstChild;
    if (node && node.nodeType === 3 && node.nextSibling === null) {
      if (node.data !== text) node.data = text;
    } else if (el.textContent !== text) el.textContent = text;
  }
  function renderTime(el, now, shown) {
    const ms = Number(el.dataset.clock);
    if (!Number.isFinite(ms)) return;
    setText(el, formatClock(ms, timeZone(), now));
    const title = formatFull(ms, timeZone(), shown);
    if (el.title !== title) el.title = title;
  }
  // The times under `root`, and the labels that name the zone (a live section's table heading too).
  function renderIn(root) {
    const now = Date.now();
    const shown = label();
    if (root.matches && root.matches('time[data-clock]')) renderTime(root, now, shown);
    for (const el of root.querySelectorAll('time[data-clock]')) renderTime(el, now, shown);
    for (const el of root.querySelectorAll('[data-tz-label]')) setText(el, shown);
  }
  function renderSwitch() {
    for (const button of document.querySelectorAll('#tz button[data-tz]')) button.setAttribute('aria-pressed', String(button.dataset.tz === zone));
  }
  function set(next) {
    if (next !== 'utc' && next !== 'local') return;
    zone = next;
    try {
      window.localStorage.setItem(KEY, zone);
    } catch {
      // Not kept: this page only.
    }
    renderSwitch();
    renderIn(document);
    for (const listener of listeners) listener(zone);
  }

  document.addEventListener('click', (e) => {
    const button = e.target.closest('#tz button[data-tz]');
    if (button) set(button.dataset.tz);
  });
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) if (node.nodeType === 1) renderIn(node);
  }).observe(document.body, { childList: true, subtree: true });
  // "Today" moves at midnight: the texts are written again when the day (in the zone shown) changes.
  const dayOf = () => {
    const today = partsOf(Date.now(), timeZone());
    return today.year + ' ' + today.month + ' ' + today.day;
  };
  let day = dayOf();
  setInterval(() => {
    const next = dayOf();
    if (next !== day) renderIn(document);
    day = next;
  }, 60_000);

  window.failoutTime = Object.freeze({
    zone: () => zone,
    set,
    toggle: () => set(zone === 'utc' ? 'local' : 'utc'),
    // A function to call after every change of zone (console.js draws its charts again).
    onChange: (listener) => listeners.push(listener),
    // uPlot's options for a time axis in the zone shown: its dates and its tick labels.
    plotOptions: () => ({ tzDate: zone === 'local' ? (s) => new Date(s * 1000) : (s) => uPlot.tzDate(new Date(s * 1000), 'Etc/UTC') }),
    // The labels drawn are also kept on the plot's element (`data-ticks`): the canvas has no text to read.
    axis: () => ({
      values: (u, splits) => {
        const labels = tickLabels(splits, timeZone());
        u.root.dataset.ticks = labels.join(' ');
        return labels;
      },
    }),
  });
  renderSwitch();
  renderIn(document);
})();
