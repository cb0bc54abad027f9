/** Turning parsed flags into the options objects of the runner's modules. */
import { resolve } from "node:path";
import {
  type MessagingRoute,
  PROTECTED_MESSAGING_ROUTES,
  parseMessagingRoutes,
  RouteListError,
  type SkillDefinition,
} from "@webbrain/agent";
import type { BrowserConnectionOptions } from "../browser/browser-connection.js";
import { UsageError } from "../errors.js";
import { type SkillNetwork, skillNetworkFor } from "../run/offline-wikipedia-file.js";
import type { ProviderFlags } from "../run/provider-options.js";
import { type RunnerLocalFiles, runnerLocalFilesFrom } from "../tools/local-files.js";

/** The model flags a command took, as providerFromFlags reads them. */
export function providerFlagsFrom(options: {
  provider?: string;
  "base-url"?: string;
  model?: string;
  "api-key-env"?: string;
  tier?: ProviderFlags["tier"];
  "azure-deployment"?: string;
  "azure-api-version"?: string;
  "bedrock-region"?: string;
  "request-timeout"?: number;
  "context-window"?: number;
}): ProviderFlags {
  return {
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options["base-url"] ? { baseUrl: options["base-url"] } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options["api-key-env"] ? { apiKeyEnv: options["api-key-env"] } : {}),
    ...(options.tier ? { tier: options.tier } : {}),
    ...(options["azure-deployment"] ? { azureDeployment: options["azure-deployment"] } : {}),
    ...(options["azure-api-version"] ? { azureApiVersion: options["azure-api-version"] } : {}),
    ...(options["bedrock-region"] ? { bedrockRegion: options["bedrock-region"] } : {}),
    ...(options["request-timeout"] ? { requestTimeoutSeconds: options["request-timeout"] } : {}),
    ...(options["context-window"] ? { contextWindow: options["context-window"] } : {}),
  };
}

export function browserOptionsFrom(options: {
  headed?: boolean;
  connect?: string;
  webdriver?: string;
  firefox?: string;
  profile?: string;
  "storage-state"?: string;
  "max-download-mb"?: number;
  "allow-file-urls"?: boolean;
  "upload-dir"?: readonly string[];
  attach?: readonly string[];
}): BrowserConnectionOptions & {
  storageState?: string;
  maxDownloadBytes?: number;
  localFiles: RunnerLocalFiles;
} {
  return {
    // Checked here, when the command starts: a missing --upload-dir or --attach is exit 2.
    localFiles: runnerLocalFilesFrom(options),
    ...(options.headed ? { headed: true } : {}),
    ...(options.connect ? { connect: options.connect } : {}),
    ...(options.webdriver ? { webdriver: options.webdriver } : {}),
    ...(options.firefox ? { firefoxPath: options.firefox } : {}),
    ...(options.profile ? { profileDir: resolve(options.profile) } : {}),
    ...(options["storage-state"] ? { storageState: resolve(options["storage-state"]) } : {}),
    ...(options["max-download-mb"] ? { maxDownloadBytes: options["max-download-mb"] * 1024 * 1024 } : {}),
  };
}

/**
 * How skill tools reach the network: live, with `--zim FILE` as the Wikipedia skill's offline
 * fallback. Checked now (a bad archive is exit 2 before the model or Firefox); the caller closes it.
 */
export function skillNetworkFrom(
  options: { zim?: string },
  skills: readonly SkillDefinition[],
): Promise<SkillNetwork> {
  return skillNetworkFor(options.zim, skills);
}

/** The recipient guard's routes: the built-in ones plus every `--messaging-route` line. */
export function messagingRoutesFrom(lines: readonly string[] | undefined): MessagingRoute[] {
  try {
    return [...PROTECTED_MESSAGING_ROUTES, ...parseMessagingRoutes((lines ?? []).join("\n"))];
  } catch (error) {
    if (error instanceof RouteListError) throw new UsageError(`--messaging-route: ${error.message}`);
    throw error;
  }
}
