/**
 * One tool's contract: what the model is told (name, description, parameters as typebox, sent as
 * JSON Schema), who offers it (modes and tiers, vision), what the port must be able to do, where it
 * runs, who wrote the text its result carries, its facets (tool-facets.ts): the facts guards,
 * replay and traces read instead of switching on names, and its example call (example.ts): the
 * call both conformance tests make in real Firefox, so no test keeps a list of calls by name.
 *
 * Kinds drive the guards: `observe` tools read and never change the page ("looking is not
 * looping": the loop detector ignores them); `act` tools change the page; `navigate` changes
 * the URL; `network` reaches other origins; `download` saves files; `dev` only exists in Dev
 * mode; `control` ends or pauses the turn (`pause_for_user` waits for a person, then goes on),
 * or schedules work for later.
 */
import type { TObject, TProperties, TSchema } from "typebox";
import type { AgentFacility } from "../agent-facilities.js";
import type { BrowserCapability } from "../browser-capabilities.js";
import type { Mode, Tier } from "../modes.js";
import type { PermissionFacet, ToolFacets } from "../tool-facets.js";
import type { ExampleArgs } from "./example.js";

export type ToolKind = "observe" | "act" | "navigate" | "network" | "download" | "dev" | "control";

/**
 * Where a tool runs.
 * - `page`: the page layer's action of the same name (packages/page/src/handle.ts). `trustedInput`:
 *   the page answers a plan of clicks and keys and the runner presses it with BiDi input;
 *   `searchesShadowRoots`: it looks for elements, so the runner exposes closed shadow roots first.
 * - `port_action`: `BrowserPort.pageAction(name)`, answered by the port itself (frames in other
 *   origins, the page's own realm): not in the page layer.
 * - `port`: a BrowserPort method, called by the agent's dispatch (navigate, screenshot, fetch...).
 * - `agent`: the agent answers it (done, clarify, scheduling); `requires` names what the embedder
 *   must give the agent for it (AGENT_FACILITIES in @webbrain/protocol), else it is not offered.
 */
export type ToolRuns =
  | { in: "page"; trustedInput: boolean; searchesShadowRoots: boolean }
  | { in: "port_action" }
  | { in: "port" }
  | { in: "agent"; requires: readonly AgentFacility[] };

/**
 * Who wrote what the model reads. `page`: page or third-party text, wrapped as untrusted.
 * `agent`: no page text (scroll offsets, wait outcomes, key echoes), printed plain.
 * Either way the structured result goes to `details` whole (tool-result.ts).
 */
export type ResultTrust = "page" | "agent";

/** The lowest tier of a mode that offers the tool (every higher tier offers it too). */
export type ToolOffer = Partial<Record<Mode, Tier>>;

export interface ToolContract<
  Name extends string = string,
  Runs extends ToolRuns = ToolRuns,
  Params extends TObject = TObject,
  Accepts extends TProperties = TProperties,
  Details extends TSchema = TSchema,
> extends ToolFacets {
  name: Name;
  kind: ToolKind;
  description: string;
  /** The arguments offered to the model (sent as JSON Schema). */
  parameters: Params;
  /**
   * What a result carries besides `success` and `error`: what the model reads and code reads
   * (result-shapes.ts). A page tool's action returns exactly this (tsc checks it); `Type.Unknown`
   * where the shape is the page's own (execute_js's value).
   */
  details: Details;
  /**
   * What the page layer takes besides `parameters`, never offered to the model: what a port adds
   * (the tree's nodes, set_field's `phase`) and spellings callers use that the offered schema does
   * not show (drag_drop's `source_ref_id`). A property here replaces the offered one of the same
   * name (scroll's `direction` also takes left and right). Every page call takes `ref_floor` too,
   * and a trusted-input tool `mode` and `force` (page-calls.ts).
   */
  accepts?: Accepts;
  /** Modes that offer the tool, each from its lowest tier up. Dev on Compact offers nothing. */
  offer: ToolOffer;
  /** Offered only to models that take images: its answer is one (the run's image budget counts it). */
  vision: boolean;
  /** The port must declare all of these (BrowserPort.capabilities). */
  needs: readonly BrowserCapability[];
  runs: Runs;
  result: ResultTrust;
  /**
   * One call of the tool on the conformance page, with placeholders for what each run's page
   * gives (example.ts). Every tool declares one: both conformance tests make exactly this call.
   */
  example: ExampleArgs;
}

interface DeclarationInput<
  Runs extends ToolRuns,
  Params extends TObject,
  Accepts extends TProperties,
  Details extends TSchema,
> extends ToolFacets {
  kind: ToolKind;
  description: string;
  parameters: Params;
  details: Details;
  accepts?: Accepts;
  offer: ToolOffer;
  needs: readonly BrowserCapability[];
  runs: Runs;
  result?: ResultTrust;
  vision?: boolean;
  example: ExampleArgs;
}

/**
 * The permission a kind asks for unless the declaration says otherwise (`permission` given, or
 * `null` for none): acting asks about the page, going somewhere or fetching about the URL.
 */
const KIND_PERMISSION: Partial<Record<ToolKind, PermissionFacet>> = {
  act: { capability: "interact", origin: "page" },
  navigate: { capability: "navigate", origin: "url" },
  network: { capability: "network", origin: "url" },
  download: { capability: "download", origin: "page" },
};

export function tool<
  const Name extends string,
  const Runs extends ToolRuns,
  const Params extends TObject,
  const Details extends TSchema,
  const Accepts extends TProperties = Record<never, never>,
>(
  name: Name,
  input: Omit<DeclarationInput<Runs, Params, Accepts, Details>, "permission"> & {
    permission?: PermissionFacet | null;
  },
): ToolContract<Name, Runs, Params, Accepts, Details> {
  const { permission, ...rest } = input;
  const asks = permission === undefined ? KIND_PERMISSION[input.kind] : (permission ?? undefined);
  return {
    name,
    ...rest,
    ...(asks ? { permission: asks } : {}),
    result: input.result ?? "page",
    vision: input.vision ?? false,
  };
}
