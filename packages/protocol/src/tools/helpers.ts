/**
 * Page actions that are not tools, never offered to the model: the agent's read-only probes
 * (blockedDone's probe_completion, the recipient guard's conversation_header), and the calls a
 * port makes after pressing a plan (verify_effect, verify_keys, check_value: what the trusted
 * input did) or to map elements to refs (refs_of). The page layer implements each (handle.ts).
 */
import { type TObject, Type } from "typebox";
import { keyList, none, optBool, optStr, PAGE, ref, str } from "./shorthands.js";

/** A page action that is not a tool: its name and arguments (runs in the page layer, plain). */
export interface PageHelperContract<Name extends string = string, Params extends TObject = TObject> {
  name: Name;
  parameters: Params;
  runs: typeof PAGE;
}

function pageHelper<const Name extends string, const Params extends TObject>(
  name: Name,
  input: { parameters: Params },
): PageHelperContract<Name, Params> {
  return { name, ...input, runs: PAGE };
}

/** The token a resolve answer's verify call passes back: the baseline taken before the input. */
const token = str();

export const PAGE_HELPERS = [
  pageHelper("probe_completion", { parameters: none }),
  pageHelper("verify_effect", { parameters: Type.Object({ token }) }),
  pageHelper("verify_keys", {
    parameters: Type.Object({ token, keys: Type.Optional(keyList), key: optStr() }),
  }),
  pageHelper("refs_of", { parameters: Type.Object({ selector: str() }) }),
  pageHelper("check_value", {
    parameters: Type.Object({ ref_id: ref, expected: str(), replace: optBool(), paste_fallback: optBool() }),
  }),
  pageHelper("conversation_header", { parameters: Type.Object({ composer: ref }) }),
] as const;
