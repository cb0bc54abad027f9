/**
 * Page actions that are not tools, never offered to the model: the agent's read-only probes
 * (blockedDone's probe_completion, the recipient guard's conversation_header), and the calls a
 * port makes after pressing a plan (verify_effect, verify_keys, check_value: what the trusted
 * input did) or to map elements to refs (refs_of). The page layer implements each (handle.ts).
 */
import { type TObject, type TSchema, Type } from "typebox";
import { Edges, EffectReport, ElementSummary, TYPED } from "./result-shapes.js";
import { keyList, none, optBool, optStr, PAGE, ref, str } from "./shorthands.js";

/** A page action that is not a tool: its name and arguments (runs in the page layer, plain). */
export interface PageHelperContract<
  Name extends string = string,
  Params extends TObject = TObject,
  Details extends TSchema = TSchema,
> {
  name: Name;
  parameters: Params;
  details: Details;
  runs: typeof PAGE;
}

function pageHelper<const Name extends string, const Params extends TObject, const Details extends TSchema>(
  name: Name,
  input: { parameters: Params; details: Details },
): PageHelperContract<Name, Params, Details> {
  return { name, ...input, runs: PAGE };
}

/** The token a resolve answer's verify call passes back: the baseline taken before the input. */
const token = str();

export const PAGE_HELPERS = [
  pageHelper("probe_completion", {
    parameters: none,
    details: Type.Object({
      url: Type.String(),
      /** Open dialogs (native `<dialog open>`, aria-modal, role=dialog/alertdialog). */
      dialogs: Type.Array(
        Type.Object({
          ref_id: Type.Number(),
          role: Type.String(),
          name: Type.String(),
          label: Type.String(),
          modal: Type.Boolean(),
        }),
      ),
      /** Visible forms, by counts of fields (`changed`: from their markup defaults). */
      forms: Type.Array(
        Type.Object({
          label: Type.String(),
          fields: Type.Number(),
          filled: Type.Number(),
          invalid: Type.Number(),
          changed: Type.Number(),
        }),
      ),
      /** Live regions and alerts. */
      messages: Type.Array(Type.Object({ role: Type.String(), text: Type.String() })),
      busy: Type.Boolean(),
      open_dialog: Type.Boolean(),
      focused: Type.Optional(Type.Object({ role: Type.String(), name: Type.String() })),
    }),
  }),
  pageHelper("verify_effect", {
    parameters: Type.Object({ token }),
    details: Type.Object({ effect: EffectReport }),
  }),
  pageHelper("verify_keys", {
    parameters: Type.Object({ token, keys: Type.Optional(keyList), key: optStr() }),
    details: Type.Object({
      pressed: Type.Array(Type.String()),
      effect: EffectReport,
      focused: Type.Union([ElementSummary, Type.Null()]),
    }),
  }),
  pageHelper("refs_of", {
    parameters: Type.Object({ selector: str() }),
    /** Per element the selector matches, in document order: its ref (null: never printed) and whether it shows. */
    details: Type.Object({
      count: Type.Number(),
      refs: Type.Array(Type.Union([Type.Number(), Type.Null()])),
      visible: Type.Array(Type.Boolean()),
    }),
  }),
  pageHelper("check_value", {
    parameters: Type.Object({ ref_id: ref, expected: str(), replace: optBool(), paste_fallback: optBool() }),
    details: Type.Object(TYPED),
  }),
  pageHelper("conversation_header", {
    parameters: Type.Object({ composer: ref }),
    /** Where the composer, its pane and the pane's message list are drawn, and every heading. */
    details: Type.Object({
      composer: Edges,
      pane: Edges,
      messageList: Type.Optional(Edges),
      headings: Type.Array(
        Type.Object({
          name: Type.String(),
          box: Edges,
          visible: Type.Boolean(),
          inComposer: Type.Boolean(),
          inList: Type.Boolean(),
          inPane: Type.Boolean(),
        }),
      ),
    }),
  }),
] as const;
