/**
 * The background's side of Settings -> Skills: seeding packaged skills at start and the
 * settings page's requests (`wb_skills_*`). Runs read `enabled()` at their start, so a skill
 * imported now is in the next model call.
 */
import { LocalAreaStore } from "../scheduling/local-area-store.js";
import { PACKAGED_SKILLS } from "./packaged-skills.js";
import { SkillsStore } from "./skills-store.js";

export type SkillsRequest =
  | { type: "wb_skills_list" }
  | { type: "wb_skills_import"; markdown: string }
  | { type: "wb_skills_set_enabled"; id: string; enabled: boolean }
  | { type: "wb_skills_remove"; id: string };

type Reply = { ok: true; value: unknown } | { ok: false; error: string };

const TYPES = new Set(["wb_skills_list", "wb_skills_import", "wb_skills_set_enabled", "wb_skills_remove"]);

export class SkillsService {
  readonly store = new SkillsStore(new LocalAreaStore(browser.storage.local));

  start(): Promise<void> {
    return this.store.seed(PACKAGED_SKILLS);
  }

  handle(message: unknown): Promise<Reply> | undefined {
    const type = (message as { type?: unknown } | null)?.type;
    if (typeof type !== "string" || !TYPES.has(type)) return undefined;
    return this.answer(message as SkillsRequest).then(
      (value): Reply => ({ ok: true, value }),
      (error: unknown): Reply => ({
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  private async answer(request: SkillsRequest): Promise<unknown> {
    switch (request.type) {
      case "wb_skills_list":
        return this.store.summaries();
      case "wb_skills_import": {
        const skill = await this.store.import(request.markdown);
        return { id: skill.id, name: skill.name };
      }
      case "wb_skills_set_enabled":
        await this.store.setEnabled(request.id, request.enabled);
        return { id: request.id };
      case "wb_skills_remove":
        await this.store.remove(request.id);
        return { id: request.id };
    }
  }
}
