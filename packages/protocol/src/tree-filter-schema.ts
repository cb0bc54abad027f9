/** The tree `filter` argument as the model sees it: a plain `enum` of TREE_FILTERS (shorter than a union). */
import { Type } from "typebox";
import { TREE_FILTERS } from "./tree-filter.js";

export const TreeFilterSchema = Type.Enum([...TREE_FILTERS]);
