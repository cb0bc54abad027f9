/**
 * "Test connection" and the model list of Settings -> Providers: the agent's one model listing
 * (`listModels`, packages/agent model-listing.ts: GET /models for OpenAI-compatible servers and
 * Anthropic, a one-line generation through pi-ai for Azure OpenAI and Bedrock), with each
 * failure said in the user's language.
 */
import { listModels, ModelListError, type ModelListOptions } from "@webbrain/agent";
import { t } from "../shared/i18n.js";
import type { ConnectionTestResult } from "../shared/messages.js";
import type { ProviderConfig } from "../shared/settings.js";
import { toAgentProvider } from "./provider-mapping.js";

export class ConnectionTestError extends Error {
  override name = "ConnectionTestError";
}

/** The failure in the catalog's words (the agent's own message for a failed generation). */
function said(error: ModelListError, provider: ProviderConfig): string {
  const { url, detail } = error;
  switch (error.problem) {
    case "timeout":
      return t("testTimedOut", url, (detail.timeoutMs ?? 0) / 1000);
    case "unreachable":
      return t("testUnreachable", url);
    case "key_refused":
      return t("testKeyRefused", url, detail.status ?? 401);
    case "http_status":
      return t("testHttpStatus", url, `${detail.status}${detail.preview ? `: ${detail.preview}` : ""}`);
    case "not_json":
      return t("testNotJson", url, provider.api);
    case "generation":
      return error.message;
  }
}

export async function testProviderConnection(
  provider: ProviderConfig,
  options: ModelListOptions = {},
): Promise<ConnectionTestResult> {
  try {
    return await listModels(toAgentProvider(provider), options);
  } catch (error) {
    if (error instanceof ModelListError) throw new ConnectionTestError(said(error, provider));
    throw error;
  }
}
