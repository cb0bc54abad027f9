/**
 * Saved workflows in `storage.local` (key WORKFLOWS_KEY): the one list the sidebar and the
 * traces page both save to, list and run. A stored entry that no longer parses is skipped, not
 * fatal (a newer WebBrain may have written it).
 *
 * Entries: a workflow saved here is its file text (a string, as every earlier version stored
 * it); an imported file not yet approved is `{text, approved: false}`. An imported file is data
 * from anywhere: its steps are shown and approved before its first run (workflow-panel.ts), and
 * however it was approved, its steps replay through the executor's gates.
 */
import { parseWorkflow, serializeWorkflow, type Workflow } from "@webbrain/agent";

export const WORKFLOWS_KEY = "workflows";

export interface SavedWorkflow {
  workflow: Workflow;
  /** Saved from a run here, or imported and approved by the user. */
  approved: boolean;
}

type StoredEntry = string | { text: string; approved: boolean };

function entryOf(saved: SavedWorkflow): StoredEntry {
  const text = serializeWorkflow(saved.workflow);
  return saved.approved ? text : { text, approved: false };
}

function savedOf(entry: unknown): SavedWorkflow[] {
  try {
    if (typeof entry === "string") return [{ workflow: parseWorkflow(entry), approved: true }];
    const record = entry as { text?: unknown; approved?: unknown } | null;
    if (record && typeof record.text === "string")
      return [{ workflow: parseWorkflow(record.text), approved: record.approved === true }];
  } catch {
    // A damaged or newer entry: skipped.
  }
  return [];
}

export async function loadSavedWorkflows(
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<SavedWorkflow[]> {
  const stored = (await area.get(WORKFLOWS_KEY))[WORKFLOWS_KEY];
  return Array.isArray(stored) ? stored.flatMap(savedOf) : [];
}

export async function loadWorkflows(
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<Workflow[]> {
  return (await loadSavedWorkflows(area)).map((saved) => saved.workflow);
}

async function storeSaved(list: readonly SavedWorkflow[], area: browser.storage.StorageArea): Promise<void> {
  await area.set({ [WORKFLOWS_KEY]: list.map(entryOf) });
}

/** Adds a workflow: `approved` false for an imported file (its steps are shown before it runs). */
export async function addWorkflow(
  workflow: Workflow,
  area: browser.storage.StorageArea = browser.storage.local,
  approved = true,
): Promise<void> {
  await storeSaved([...(await loadSavedWorkflows(area)), { workflow, approved }], area);
}

/** The user read an imported workflow's steps and approved them. */
export async function approveWorkflow(
  index: number,
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<void> {
  const list = await loadSavedWorkflows(area);
  await storeSaved(
    list.map((saved, i) => (i === index ? { ...saved, approved: true } : saved)),
    area,
  );
}

export async function removeWorkflow(
  index: number,
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<void> {
  await storeSaved(
    (await loadSavedWorkflows(area)).filter((_, i) => i !== index),
    area,
  );
}

/**
 * A repair saved `next` as the next version of `old` (a scheduled workflow job): it takes the
 * place of the entry holding `old`, or is added when that entry was removed or changed since.
 */
export async function replaceWorkflow(
  old: Workflow,
  next: Workflow,
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<void> {
  const list = await loadSavedWorkflows(area);
  const oldText = serializeWorkflow(old);
  const index = list.findIndex((saved) => serializeWorkflow(saved.workflow) === oldText);
  const entry = { workflow: next, approved: true };
  await storeSaved(
    index < 0 ? [...list, entry] : list.map((saved, i) => (i === index ? entry : saved)),
    area,
  );
}
