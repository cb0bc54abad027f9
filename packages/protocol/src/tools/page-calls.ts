/**
 * What the page layer accepts for each of its actions and answers (PageCallParams, PageDetails),
 * and the schemas of the params: the tool's offered
 * `parameters`, what the contract `accepts` besides, and what every page call may carry
 * (PAGE_CALL_PROPERTIES: the port's ref floor; RESOLVE_PROPERTIES for trusted-input tools).
 *
 * The page layer validates and converts a call's params with these schemas before the action
 * runs (packages/page/src/call-params.ts), so an action receives `PageCallParams<name>`, typed by
 * tsc. The bundle carries them as JSON (packages/page/src/bundle.ts): typebox stays out of pages.
 */
import { type Static, type TObject, type TProperties, Type } from "typebox";
import { PAGE_TOOL_DECLARATIONS, type PageLayerActionName, type PageToolDeclaration } from "./catalog.js";
import { PAGE_HELPERS } from "./helpers.js";
import { optBool } from "./shorthands.js";

/** Every page call may carry these: the highest ref the port's tab has shown (ref-registry.ts). */
export const PAGE_CALL_PROPERTIES = { ref_floor: Type.Optional(Type.Number()) };

/**
 * A trusted-input tool's call also takes these: `mode: "resolve"` answers the element and a plan
 * for the port to press instead of acting (press-and-verify in the runner); `force` skips the
 * occlusion check.
 */
export const RESOLVE_PROPERTIES = {
  mode: Type.Optional(Type.Enum(["dispatch", "resolve"])),
  force: optBool(),
};

type PageLayerContract = PageToolDeclaration | (typeof PAGE_HELPERS)[number];
type NoProperties = Record<never, never>;
type PropertiesOf<C> = C extends { parameters: TObject<infer P> } ? P : NoProperties;
type AcceptsOf<C> = C extends { accepts?: infer A }
  ? A extends TProperties
    ? A
    : NoProperties
  : NoProperties;
type ResolveOf<C> = C extends { runs: { trustedInput: true } } ? typeof RESOLVE_PROPERTIES : NoProperties;

/** The properties a page call of this contract takes (see the header). */
export type PageCallProperties<C> = Omit<PropertiesOf<C>, keyof AcceptsOf<C>> &
  AcceptsOf<C> &
  typeof PAGE_CALL_PROPERTIES &
  ResolveOf<C>;

/** A ref (integer or string in the offered schema: 31, "31", "[31]") arrives as its number. */
type RefsAsNumbers<T> = { [K in keyof T]: number | string extends T[K] ? Exclude<T[K], string> : T[K] };

type CallParamsByName = {
  [C in PageLayerContract as C["name"]]: RefsAsNumbers<Static<TObject<PageCallProperties<C>>>>;
};

/** What the page layer's action `Name` receives: its params, validated and converted. */
export type PageCallParams<Name extends PageLayerActionName> = CallParamsByName[Name];

type DetailsByName = { [C in PageLayerContract as C["name"]]: Static<C["details"]> };

/** What the page layer's action `Name` answers as its details (its contract's `details`). */
export type PageDetails<Name extends PageLayerActionName> = DetailsByName[Name];

function callSchema(contract: {
  parameters: TObject;
  runs: { trustedInput: boolean };
  accepts?: TProperties;
}): TObject {
  return Type.Object({
    ...contract.parameters.properties,
    ...PAGE_CALL_PROPERTIES,
    ...(contract.runs.trustedInput ? RESOLVE_PROPERTIES : {}),
    ...contract.accepts,
  });
}

/** The schema of every page action's params, by action name (see the header). */
export const PAGE_CALL_SCHEMAS: Readonly<Record<PageLayerActionName, TObject>> = Object.fromEntries(
  [...PAGE_TOOL_DECLARATIONS, ...PAGE_HELPERS].map((contract: PageLayerContract) => [
    contract.name,
    callSchema(contract as Parameters<typeof callSchema>[0]),
  ]),
) as Record<PageLayerActionName, TObject>;
