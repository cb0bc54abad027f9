/**
 * The pages' side of the request channel: typed `runtime.sendMessage` that turns a failed or
 * missing reply into a thrown Error with a sentence for the user.
 */
import { t } from "./i18n.js";
import type { Reply, ReplyValues, Request } from "./messages.js";

export class BackgroundError extends Error {
  override name = "BackgroundError";
}

export async function request<R extends Request>(message: R): Promise<ReplyValues[R["type"]]> {
  let reply: unknown;
  try {
    reply = await browser.runtime.sendMessage(message);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new BackgroundError(t("errorBackgroundSilent", detail));
  }
  const typed = reply as Reply<ReplyValues[R["type"]]> | undefined;
  if (typed === undefined || typeof typed !== "object" || !("ok" in typed)) {
    throw new BackgroundError(t("errorBackgroundNoAnswer", message.type));
  }
  if (!typed.ok) throw new BackgroundError(typed.error);
  return typed.value;
}
