/**
 * Which nodes a tree snapshot prints: `interactive` (controls only), `visible` (what is on
 * screen) or `all` (the default when none is given). The page layer reads the argument with
 * this list, the runner's `--filter` flag offers it, and the model's schema lists it in this
 * order.
 *
 * No typebox here: the page layer is bundled into pages and imports this list alone (the schema
 * the model sees is in tree-filter-schema.ts, built from it).
 */
export const TREE_FILTERS = ["interactive", "visible", "all"] as const;
export type TreeFilter = (typeof TREE_FILTERS)[number];
