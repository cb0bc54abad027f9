/**
 * A result's details typed by its tool's contract, for code that reads results (the agent's
 * guards and dispatch, the ports): `detailsOf(name, result)` instead of testing each field's type.
 *
 * Why a typed view and not a check: a page tool's details are what the page layer's action
 * returned, and tsc holds each action to its contract's `details` (packages/page/src/handle.ts);
 * ports add only the fields PORT_ADDED names. The tree's nodes, which code acts on, are still
 * checked by shape where they are read (treeNodesOf).
 */
import type { Static, TSchema } from "typebox";
import type { PageResult } from "../page-answer.js";
import { type PageLayerHelperName, TOOL_CATALOG, type ToolDeclaration } from "./catalog.js";
import { detailsMismatches } from "./details-check.js";
import { PAGE_HELPERS } from "./helpers.js";

type Described = ToolDeclaration | (typeof PAGE_HELPERS)[number];
type DetailsByName = { [C in Described as C["name"]]: Static<C["details"]> };

/** A tool's or page helper's name. */
export type DescribedName = ToolDeclaration["name"] | PageLayerHelperName;

/** What a result of `Name` carries besides `success` and `error` (its contract's `details`). */
export type ToolDetails<Name extends DescribedName> = DetailsByName[Name];

/** The details of `result`, a result of `name`, when it succeeded; undefined when it failed. */
export function detailsOf<Name extends DescribedName>(
  _name: Name,
  result: PageResult | undefined,
): ToolDetails<Name> | undefined {
  return result?.success === true ? (result as unknown as ToolDetails<Name>) : undefined;
}

const DETAILS_SCHEMAS = new Map<string, TSchema>(
  [...TOOL_CATALOG, ...PAGE_HELPERS].map((contract) => [contract.name, contract.details]),
);

/**
 * `detailsOf`, checked: undefined also when the result does not fit the contract's `details`.
 * For a reader whose wrong guess would do harm (a guard that refuses `done` must never be
 * trapped by an answer it cannot read: a port's fake, a page layer of another version).
 */
export function checkedDetailsOf<Name extends DescribedName>(
  name: Name,
  result: PageResult | undefined,
): ToolDetails<Name> | undefined {
  const details = detailsOf(name, result);
  const schema = DETAILS_SCHEMAS.get(name);
  if (details === undefined || schema === undefined || result === undefined) return undefined;
  return detailsMismatches(schema, result, 1).length === 0 ? details : undefined;
}
