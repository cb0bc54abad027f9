/**
 * Which workflow files the user has approved to run: the SHA-256 of each file's exact bytes,
 * kept in the runner's state folder (`$WEBBRAIN_STATE_DIR`, else `$XDG_STATE_HOME/webbrain`, else
 * `~/.local/state/webbrain`), file `approved-workflows.json`, mode 0600.
 *
 * Why a hash of the bytes: a workflow file is data anyone can write (a download, a shared
 * folder, an attacker). A flag inside the file would be written by the attacker too; a hash the
 * runner recorded itself (at `workflow save`, or when the user approved the steps) names exactly
 * the text that was seen, and any change to the file (one step added) needs approval again.
 * Approval only lets the file run: every step still goes through the executor's gates.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { writePrivateFile } from "./private-file.js";

export const APPROVALS_FILE = "approved-workflows.json";

export interface ApprovalEntry {
  approvedAt: string;
  /** How: saved by `workflow save`, or approved by the user before a run. */
  how: "saved" | "approved";
  /** The file's path then (for a person reading the list). */
  path: string;
}

export function stateDir(env: Record<string, string | undefined>): string {
  if (env.WEBBRAIN_STATE_DIR) return env.WEBBRAIN_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return join(base, "webbrain");
}

export function workflowHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export class WorkflowApprovals {
  readonly #file: string;
  readonly #dir: string;

  constructor(env: Record<string, string | undefined>) {
    this.#dir = stateDir(env);
    this.#file = join(this.#dir, APPROVALS_FILE);
  }

  async #load(): Promise<Record<string, ApprovalEntry>> {
    try {
      const value: unknown = JSON.parse(await readFile(this.#file, "utf8"));
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as Record<string, ApprovalEntry>)
        : {};
    } catch {
      // Missing or damaged: nothing is approved (the safe reading).
      return {};
    }
  }

  async isApproved(text: string): Promise<boolean> {
    return Object.hasOwn(await this.#load(), workflowHash(text));
  }

  async approve(text: string, how: ApprovalEntry["how"], path: string): Promise<void> {
    const all = await this.#load();
    all[workflowHash(text)] = { approvedAt: new Date().toISOString(), how, path };
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await writePrivateFile(this.#file, `${JSON.stringify(all, null, 2)}\n`);
  }
}
