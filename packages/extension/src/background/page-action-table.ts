/**
 * The page layer's action table (@webbrain/page ACTIONS) against the tool declarations
 * (@webbrain/agent PAGE_LAYER_ACTIONS). Page and agent never import each other; the add-on
 * imports both, so the check lives here and runs in `tsc`: a tool declared to run in the page
 * without a page implementation, or a page action nobody declared, fails the type check.
 * The runner's and the add-on's conformance tests check the same at run time in Firefox.
 */
import type { PageLayerActionName } from "@webbrain/agent";
import type { ActionName } from "@webbrain/page";

type DeclaredButNotInPage = Exclude<PageLayerActionName, ActionName>;
type InPageButNotDeclared = Exclude<ActionName, PageLayerActionName>;

/** `true` only when both sets are equal; otherwise the type names the actions that differ. */
export const PAGE_ACTION_TABLE_MATCHES: [DeclaredButNotInPage, InPageButNotDeclared] extends [never, never]
  ? true
  : { declaredButNotInPage: DeclaredButNotInPage; inPageButNotDeclared: InPageButNotDeclared } = true;
