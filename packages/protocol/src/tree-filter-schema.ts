/** The tree `filter` argument as the model sees it: one literal per TREE_FILTERS entry. */
import { Type } from "typebox";
import { TREE_FILTERS } from "./tree-filter.js";

export const TreeFilterSchema = Type.Union(TREE_FILTERS.map((filter) => Type.Literal(filter)));
