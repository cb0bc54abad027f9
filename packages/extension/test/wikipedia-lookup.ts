/**
 * The offline-Wikipedia tests' common step: a scripted model asks the Wikipedia skill's
 * `wikipedia_summary` for a title in an Ask chat, and the test reads the tool's result as the
 * model got it.
 */
import {
  type FirefoxHarness,
  lastToolResultText,
  type ScriptedLlm,
  startScriptedLlm,
  waitFor,
} from "@webbrain/testkit";
import { scriptedSettings, startChatOnPage, storeSettings } from "./addon-harness.js";

/** Answers the model (close it after the test) and the tool result it read. */
export async function askWikipediaSummary(
  firefox: FirefoxHarness,
  settingsPage: string,
  pageUrl: string,
  title: string,
  question: string,
): Promise<{ llm: ScriptedLlm; result: string }> {
  const llm = await startScriptedLlm({
    dialect: "openai-chat",
    script: [
      { toolCalls: [{ name: "wikipedia_summary", arguments: { title } }] },
      (request) => ({ text: lastToolResultText(request).slice(0, 200) }),
    ],
  });
  await storeSettings(firefox.client, settingsPage, scriptedSettings(llm.baseUrl));
  await startChatOnPage(firefox, settingsPage, pageUrl, question, "ask");
  await waitFor(async () => llm.requests.length >= 2, {
    timeoutMs: 30_000,
    message: "the model did not get the tool's result",
  });
  return { llm, result: lastToolResultText(llm.requests[1]!) };
}
