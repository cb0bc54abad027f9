/**
 * Saved workflows in `storage.local` (key WORKFLOWS_KEY), as their file text: the one list the
 * sidebar and the traces page both save to, list and run. A stored entry that no longer parses
 * is skipped, not fatal (a newer WebBrain may have written it).
 */
import { parseWorkflow, serializeWorkflow, type Workflow } from "@webbrain/agent";

export const WORKFLOWS_KEY = "workflows";

export async function loadWorkflows(
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<Workflow[]> {
  const stored = (await area.get(WORKFLOWS_KEY))[WORKFLOWS_KEY];
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((text) => {
    try {
      return [parseWorkflow(String(text))];
    } catch {
      return [];
    }
  });
}

export async function storeWorkflows(
  list: readonly Workflow[],
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<void> {
  await area.set({ [WORKFLOWS_KEY]: list.map((w) => serializeWorkflow(w)) });
}

export async function addWorkflow(
  workflow: Workflow,
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<void> {
  await storeWorkflows([...(await loadWorkflows(area)), workflow], area);
}

export async function removeWorkflow(
  index: number,
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<void> {
  await storeWorkflows(
    (await loadWorkflows(area)).filter((_, i) => i !== index),
    area,
  );
}
