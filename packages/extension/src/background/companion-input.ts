/**
 * Which input a run uses, decided once at its start: trusted (the companion lends the runner's
 * BiDi port, so every page action of the run goes through it, and the page layer that answers is
 * the companion's: the refs the model sees and the clicks that use them come from one place) or
 * synthetic (the add-on's own content scripts, as without the companion).
 *
 * Invariants:
 * - Off in Settings, the nativeMessaging permission not granted, the companion not installed,
 *   or a Firefox without BiDi: the run is synthetic and says why; it never fails for it.
 * - A companion that dies mid-run turns that call into a failed result whose error says so
 *   (the model and the sidebar read it); the next call starts a new companion.
 */
import type { BrowserPort, PageResult } from "@webbrain/agent";
import type { InputKind } from "@webbrain/protocol";

export { COMPANION_PERMISSION } from "@webbrain/protocol";

import { t } from "../shared/i18n.js";
import { type CompanionClient, CompanionGoneError } from "./companion-client.js";
import type { FileAttacher } from "./webext-browser-port.js";

export interface RunInput {
  kind: InputKind;
  /** One line for the sidebar: what the run uses and why. */
  detail: string;
  /** What the run's port changes (trusted: page actions through the companion). */
  overrides: Partial<BrowserPort>;
  /** How upload_file puts the file into the page (trusted: the companion's input.setFiles). */
  attachFile?: FileAttacher;
}

export interface CompanionSetting {
  enabled: boolean;
  permitted(): Promise<boolean>;
}

/** A companion that died mid-call: that call's failed result, which says so (the header's rule). */
function goneAsResult(error: unknown): PageResult {
  if (error instanceof CompanionGoneError) return { success: false, error: error.message };
  throw error;
}

export async function runInput(
  client: CompanionClient,
  setting: CompanionSetting,
  port: Pick<BrowserPort, "capabilities">,
): Promise<RunInput> {
  const synthetic = (detail: string): RunInput => ({ kind: "synthetic", detail, overrides: {} });
  if (!setting.enabled) return synthetic(t("inputSynthetic"));
  if (!(await setting.permitted())) return synthetic(t("inputSyntheticNoPermission"));
  let reason: string | undefined;
  try {
    const hello = await client.hello();
    if (hello.bidi) {
      return {
        kind: "trusted",
        detail: t("inputTrusted"),
        overrides: {
          capabilities: new Set([...port.capabilities, "trusted_input", "closed_shadow_roots"]),
          pageAction: (tabId, action, params, options) =>
            client.pageAction(Number(tabId), action, params, options?.signal).catch(goneAsResult),
        },
        attachFile: (tabId, target, file, drop) =>
          client.uploadFile(tabId, target, file, drop).catch(goneAsResult),
      };
    }
    reason = hello.reason;
  } catch (error) {
    reason = (error as Error).message;
  }
  return synthetic(t("inputSyntheticWhy", reason ?? ""));
}
