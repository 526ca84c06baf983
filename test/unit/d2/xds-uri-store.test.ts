/**
 * XdsUriStore: a cluster's announcements from one `indis.D2URIMap` watch, with the ZooKeeperUriStore
 * contract: initialize once, add when the included children or their versions change, remove when the
 * map is gone; one unreadable announcement is rejected alone (it keeps its last good value, or is
 * left out), counted and reported; the newest announcement of a URI wins.
 */
import type { MergedUriProperties } from '../../../lib/d2';
import { XdsUriStore } from '../../../lib/d2/xds-uri-store';
import { FakeD2Xds } from '../../helpers/d2-xds-fake';
import { capturingLogger } from '../../helpers/logging';
import { recordingSubscriber, type PropertyEvent } from '../../helpers/property-subscriber';

const DIR = '/d2/uris';
const MAP = `${DIR}/c1`;
const announcement = (uri: string, weight = 1): Record<string, unknown> => ({ clusterName: 'c1', partitionDesc: { [uri]: { '0': { weight } } }, uriSpecificProperties: {} });

function newStore(xds: FakeD2Xds, malformed: string[] = []): XdsUriStore {
  return new XdsUriStore({ xds, directory: DIR, onMalformed: (cluster, child) => malformed.push(`${cluster}/${child}`), logger: capturingLogger().logger });
}

const hosts = (events: readonly PropertyEvent<MergedUriProperties>[]): string[] =>
  events.map((e) => (e.type === 'remove' ? 'remove' : `${e.type}:${e.value === undefined ? 'undefined' : e.value.hosts.map((h) => `${h.uri}*${h.weight}`).join(',')}`));

describe('XdsUriStore', () => {
  let xds: FakeD2Xds;
  beforeEach(() => (xds = new FakeD2Xds()));

  it('watches <directory>/<cluster>, initializes with the merged hosts and adds on every change', async () => {
    // Prepare
    xds.putUri(MAP, 'h1', announcement('http://h1:80'));
    const store = newStore(xds);
    const sub = recordingSubscriber<MergedUriProperties>();

    // Act
    store.subscribe('c1', sub);
    await xds.idle();
    xds.putUri(MAP, 'h2', announcement('http://h2:80', 2));
    await xds.idle();
    xds.removeUri(MAP, 'h1');
    await xds.idle();

    // Assess
    expect(xds.watched('d2UriMap')).toEqual([MAP]);
    expect(hosts(sub.events)).toEqual(['initialize:http://h1:80*1', 'add:http://h1:80*1,http://h2:80*2', 'add:http://h2:80*2']);
    expect(store.stats()).toMatchObject({ watched: 1, children: 1, malformed: 0 });
  });

  it('initializes with undefined when the map does not exist, adds when it appears, removes when it goes', async () => {
    const store = newStore(xds);
    const sub = recordingSubscriber<MergedUriProperties>();

    store.subscribe('c1', sub);
    await xds.idle();
    xds.putUri(MAP, 'h1', announcement('http://h1:80'));
    await xds.idle();
    xds.removeUriMap(MAP);
    await xds.idle();

    expect(hosts(sub.events)).toEqual(['initialize:undefined', 'add:http://h1:80*1', 'remove']);
  });

  it('initializes an existing map without announcements as a view with no hosts', async () => {
    xds.putUriMap(MAP);
    const store = newStore(xds);
    const sub = recordingSubscriber<MergedUriProperties>();

    store.subscribe('c1', sub);
    await xds.idle();

    expect(hosts(sub.events)).toEqual(['initialize:']);
  });

  it('rejects one unreadable announcement alone: the other hosts stay, it is counted and reported', async () => {
    // Prepare
    const malformed: string[] = [];
    xds.putUri(MAP, 'h1', announcement('http://h1:80'));
    xds.putUri(MAP, 'bad', { clusterName: 'c1', partitionDesc: { 'http://bad:80': { '0': { weight: -1 } } } });
    const store = newStore(xds, malformed);
    const sub = recordingSubscriber<MergedUriProperties>();

    // Act
    store.subscribe('c1', sub);
    await xds.idle();

    // Assess
    expect(hosts(sub.events)).toEqual(['initialize:http://h1:80*1']);
    expect(store.childStatuses('c1')).toEqual({ bad: 'unreadable', h1: 'present' });
    expect(store.stats().malformed).toBe(1);
    expect(malformed).toEqual(['c1/bad']);
  });

  it('keeps an announcement’s last good value through an unreadable rewrite, and does not count it again when it is re-sent', async () => {
    xds.putUri(MAP, 'h1', announcement('http://h1:80'));
    const store = newStore(xds);
    const sub = recordingSubscriber<MergedUriProperties>();
    store.subscribe('c1', sub);
    await xds.idle();

    xds.putUri(MAP, 'h1', { clusterName: 'c1', partitionDesc: 'nope' });
    await xds.idle();
    xds.putUri(MAP, 'h2', announcement('http://h2:80'));
    await xds.idle();

    expect(hosts(sub.events)).toEqual(['initialize:http://h1:80*1', 'add:http://h1:80*1,http://h2:80*1']);
    expect(store.childStatuses('c1')).toEqual({ h1: 'present', h2: 'present' });
    expect(store.stats().malformed).toBe(1);
  });

  it('publishes nothing when a map arrives again unchanged', async () => {
    xds.putUri(MAP, 'h1', announcement('http://h1:80'));
    const store = newStore(xds);
    const sub = recordingSubscriber<MergedUriProperties>();
    store.subscribe('c1', sub);
    await xds.idle();

    xds.redeliver('d2UriMap', MAP);
    await xds.idle();

    expect(hosts(sub.events)).toEqual(['initialize:http://h1:80*1']);
    expect(store.stats().published).toBe(1);
  });

  it('lets the newest announcement of a URI win (creation order)', async () => {
    xds.putUri(MAP, 'old', announcement('http://h1:80', 1));
    xds.putUri(MAP, 'a-new', announcement('http://h1:80', 3));
    const store = newStore(xds);
    const sub = recordingSubscriber<MergedUriProperties>();

    store.subscribe('c1', sub);
    await xds.idle();

    expect(hosts(sub.events)).toEqual(['initialize:http://h1:80*3']);
  });

  it('keeps the last good view through a NACKed map, counted once', async () => {
    xds.putUri(MAP, 'h1', announcement('http://h1:80'));
    const store = newStore(xds);
    const sub = recordingSubscriber<MergedUriProperties>();
    store.subscribe('c1', sub);
    await xds.idle();

    xds.reject('d2UriMap', MAP);
    await xds.idle();

    expect(hosts(sub.events)).toEqual(['initialize:http://h1:80*1']);
    expect(store.get('c1')?.hosts).toHaveLength(1);
    expect(store.stats().malformed).toBe(1);
  });
});
