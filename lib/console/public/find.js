// Finding clusters on the console (issue 24, item 2): the find form filters the cards already on the
// page by toggling their `hidden` attribute (3,000 cards are never rendered again for a keystroke),
// counts what it shows, says when nothing matches, and keeps the filter in the URL's query so a view
// can be linked. Cards that arrive or change by a `patch` (console.js) are shown or hidden as they
// land: a MutationObserver sees them before the browser paints. The matching rule is specified in
// lib/console/cluster-filter.ts; a unit test holds `matches` and `parseFilter` here to it (this file
// exports them under CommonJS for that test). Text from data is only ever set with textContent.
/* global document, window, MutationObserver, URLSearchParams, setTimeout, clearTimeout */
'use strict';

(function () {
  const STATES = ['failed-out', 'ramping', 'drill', 'alarm'];
  const STATE_WORDS = { 'failed-out': 'failed out', ramping: 'ramping', drill: 'drill', alarm: 'alarm firing' };
  const PARAMS = ['service', 'cluster', 'state', 'fabric'];
  const MAX_TEXT = 256;

  // The filter a query string carries (cluster-filter.ts `parseClusterFilter`).
  function parseFilter(search) {
    const params = new URLSearchParams(search);
    const filter = {};
    for (const name of PARAMS) {
      const raw = params.get(name);
      const value = raw === null ? '' : raw.trim().slice(0, MAX_TEXT);
      if (value === '') continue;
      if (name === 'state' && !STATES.includes(value)) continue;
      filter[name] = value;
    }
    return filter;
  }
  // cluster-filter.ts `clusterFilterQuery`.
  function filterQuery(filter) {
    const params = new URLSearchParams();
    for (const name of PARAMS) {
      const value = filter[name] === undefined ? '' : filter[name].trim();
      if (value !== '') params.set(name, value);
    }
    return params.toString();
  }
  // cluster-filter.ts `matchesCard`: `card` is {service, cluster, states, fabric}.
  function matches(card, filter) {
    const given = (text) => text !== undefined && text.trim() !== '';
    if (given(filter.service) && !card.service.toLowerCase().includes(filter.service.trim().toLowerCase())) return false;
    if (given(filter.cluster) && !card.cluster.toLowerCase().includes(filter.cluster.trim().toLowerCase())) return false;
    if (filter.state !== undefined && !card.states.includes(filter.state)) return false;
    if (given(filter.fabric) && card.fabric.toLowerCase() !== filter.fabric.trim().toLowerCase()) return false;
    return true;
  }

  if (typeof module === 'object' && module.exports) {
    module.exports = { matches, parseFilter, filterQuery };
    return;
  }

  const $ = (id) => document.getElementById(id);
  const form = $('find');
  const clusters = $('clusters');
  if (!form || !clusters) return;
  const count = $('find-count');
  const empty = $('find-empty');
  const fabricSelect = $('q-fabric');
  let filter = {};
  let timer = null;

  const isActive = () => PARAMS.some((name) => filter[name] !== undefined && filter[name] !== '');
  function factsOf(card) {
    const group = card.closest('section.group');
    return {
      service: group ? group.dataset.service || '' : '',
      cluster: card.dataset.cluster || '',
      states: (card.dataset.states || '').split(' ').filter((s) => s !== ''),
      fabric: card.dataset.fabric || '',
    };
  }
  function applyTo(card) {
    const hide = isActive() && !matches(factsOf(card), filter);
    if (card.hidden !== hide) card.hidden = hide;
    addFabric(card.dataset.fabric);
  }
  // A fabric named by a card (or by the URL) that the form does not list yet.
  function addFabric(name) {
    if (!name || Array.from(fabricSelect.options).some((o) => o.value === name)) return;
    const option = document.createElement('option');
    option.value = name;
    option.textContent = name;
    fabricSelect.append(option);
  }
  function words() {
    const parts = [];
    if (filter.service) parts.push('service “' + filter.service + '”');
    if (filter.cluster) parts.push('cluster “' + filter.cluster + '”');
    if (filter.state) parts.push('state ' + STATE_WORDS[filter.state]);
    if (filter.fabric) parts.push('fabric ' + filter.fabric);
    return parts.join(', ');
  }
  // The count and the empty line, and each group hidden while the filter hides all its cards. A
  // cluster shown in two groups counts once.
  function recount() {
    const all = new Set();
    const shown = new Set();
    const active = isActive();
    for (const group of clusters.querySelectorAll('section.group')) {
      let any = false;
      for (const card of group.querySelectorAll('article.card')) {
        all.add(card.dataset.key);
        if (!card.hidden) {
          shown.add(card.dataset.key);
          any = true;
        }
      }
      const hide = active && !any;
      if (group.hidden !== hide) group.hidden = hide;
    }
    count.textContent = shown.size.toLocaleString('en-US') + ' of ' + all.size.toLocaleString('en-US') + ' clusters' + (active ? ' match ' + words() + '.' : '.');
    empty.hidden = !(active && shown.size === 0 && all.size > 0);
    empty.textContent = empty.hidden ? '' : 'No cluster matches ' + words() + '. Clear the filter to see all ' + all.size.toLocaleString('en-US') + '.';
  }
  function applyAll() {
    for (const card of clusters.querySelectorAll('article.card')) applyTo(card);
    recount();
  }
  function readForm() {
    const next = {};
    for (const name of PARAMS) {
      const value = form.elements[name].value.trim();
      if (value !== '') next[name] = value;
    }
    return next;
  }
  function writeUrl() {
    const query = filterQuery(filter);
    const url = window.location.pathname + (query === '' ? '' : '?' + query) + window.location.hash;
    window.history.replaceState(window.history.state, '', url);
  }
  function update() {
    filter = readForm();
    writeUrl();
    applyAll();
  }

  // A burst of keystrokes is one pass over the cards.
  form.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(update, 150);
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    clearTimeout(timer);
    update();
  });
  form.addEventListener('reset', () => {
    clearTimeout(timer);
    // After the browser has emptied the fields.
    timer = setTimeout(update, 0);
  });
  // Cards a patch adds or replaces, and whole sections: filtered as they arrive.
  new MutationObserver((records) => {
    let changed = false;
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        changed = true;
        if (node.matches('article.card')) applyTo(node);
        else for (const card of node.querySelectorAll('article.card')) applyTo(card);
      }
      if (record.removedNodes.length > 0) changed = true;
    }
    if (changed) recount();
  }).observe(clusters, { childList: true, subtree: true });

  // The filter a link carries.
  filter = parseFilter(window.location.search);
  if (filter.fabric) addFabric(filter.fabric);
  for (const name of PARAMS) form.elements[name].value = filter[name] || '';
  applyAll();
})();
