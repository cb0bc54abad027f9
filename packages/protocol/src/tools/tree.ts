/** The accessibility tree: the indexed snapshot the model reads and acts by (refs), and open shadow roots under an element. */
import { Type } from "typebox";
import { TreeFilterSchema } from "../tree-filter-schema.js";
import { TREE_NODES_PARAM } from "../tree-nodes.js";
import { tool } from "./contract.js";
import { ElementSummary, pageDetails } from "./result-shapes.js";
import {
  EVERYWHERE,
  INSPECTING,
  optBool,
  optNum,
  optRef,
  optStr,
  PAGE_LAYER,
  PAGE_SEARCH,
} from "./shorthands.js";

export const TREE_TOOLS = [
  tool("get_accessibility_tree", {
    kind: "observe",
    description:
      'Indexed snapshot of the page: [ref] role "name" states. Parts that do not fit are folded into one line; pass its ref as ref_id to print that part. find/role: only matching lines. diff: only what changed since the last snapshot.',
    parameters: Type.Object({
      filter: Type.Optional(TreeFilterSchema),
      ref_id: optRef,
      max_chars: optNum(),
      find: optStr(),
      role: optStr(),
      diff: Type.Optional(Type.Boolean()),
    }),
    details: pageDetails({
      tree: Type.String(),
      metadata: Type.Object({
        url: Type.String(),
        title: Type.String(),
        filter: TreeFilterSchema,
        scope_ref: Type.Optional(Type.Number()),
        truncated: Type.Boolean(),
        folded: Type.Optional(Type.Number()),
        diff: Type.Optional(
          Type.Object({ added: Type.Number(), removed: Type.Number(), changed: Type.Number() }),
        ),
        overlays: Type.Number(),
        walk_cut: Type.Optional(
          Type.Object({ reason: Type.Enum(["elements", "time"]), elements: Type.Number() }),
        ),
      }),
    }),
    accepts: { [TREE_NODES_PARAM]: optBool() },
    offer: EVERYWHERE,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    refScopesRead: true,
    answersTree: true,
    example: { filter: "interactive" },
  }),
  tool("get_shadow_dom", {
    kind: "observe",
    description: "Read open shadow roots under an element (default: the page).",
    parameters: Type.Object({ ref_id: optRef }),
    details: pageDetails({
      count: Type.Number(),
      hosts: Type.Array(
        Type.Object({ host: ElementSummary, tag: Type.String(), mode: Type.String(), tree: Type.String() }),
      ),
      note: Type.String(),
    }),
    accepts: { max_chars: optNum() },
    offer: INSPECTING,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    example: {},
  }),
] as const;
