/**
 * A scripted model for the account-login fixture, used by the task-file test and the parallel
 * bench: read the page, click "Sign in", then finish saying whether the page was signed out at
 * first. Each step decides from the request alone, so tasks running at once can share it.
 */
import type { RecordedRequest, ScriptStep } from "@webbrain/testkit";
import { toolResultTexts } from "@webbrain/testkit";

/** Model turns one sign-in task takes. */
export const SIGN_IN_TURNS = 3;

function signInStep(request: RecordedRequest) {
  const results = toolResultTexts(request);
  if (results.length === 0) return { toolCalls: [{ name: "read_page", arguments: {} }] };
  if (results.length === 1) return { toolCalls: [{ name: "click", arguments: { text: "Sign in" } }] };
  const before = results[0]!.includes("Signed out") ? "was signed out" : "was already signed in";
  return { toolCalls: [{ name: "done", arguments: { summary: `The page ${before}; now signed in.` } }] };
}

/** Enough steps for `tasks` sign-in tasks. */
export function signInScript(tasks: number): ScriptStep[] {
  return Array.from({ length: tasks * SIGN_IN_TURNS }, () => signInStep);
}
