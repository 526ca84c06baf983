/**
 * lib/d2/schema: the D2 documents' types, whole (rest.li's schema: cluster, service and URI
 * properties with every part, and the failout properties), plus the two rules that belong to the
 * types (`MAX_HOST_WEIGHT`, `mergeUriProperties`). No runtime. The package root re-exports it, so
 * every part of a document a service reads can be named; `lib/d2` and `lib/d2/data` carry only the
 * documents' top-level types.
 */
export * from '../model';
