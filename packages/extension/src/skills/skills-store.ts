/**
 * The user's skills, stored under `customSkills` (spec 000) in storage.local.
 *
 * Invariants:
 * - Packaged skills are seeded once: a packaged skill the user deleted is remembered in
 *   `customSkillsDeletedPackaged` and never re-added.
 * - A packaged skill whose text changed in a new version refreshes its stored copy only while
 *   the user keeps it enabled; a disabled one is left as the user left it.
 * - Import goes through `importSkill` (the trust boundary): a malformed manifest throws and
 *   nothing is written.
 */
import { importSkill, parseSkill, parseSkills, type SkillDefinition, type Store } from "@webbrain/agent";
import type { PackagedSkill } from "./packaged-skills.js";

export const CUSTOM_SKILLS_KEY = "customSkills";
export const DELETED_PACKAGED_KEY = "customSkillsDeletedPackaged";

/** A skill as the settings page lists it. */
export interface SkillSummary {
  id: string;
  name: string;
  enabled: boolean;
  packaged: boolean;
  summary: string;
  tools: string[];
  errors: string[];
  body: string;
}

/** FNV-1a over the text: enough to tell one packaged version from the next. */
export function textHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

export class SkillsStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: Store) {}

  async all(): Promise<SkillDefinition[]> {
    const stored = await this.store.get(CUSTOM_SKILLS_KEY);
    return Array.isArray(stored) ? (stored as unknown as SkillDefinition[]) : [];
  }

  async enabled(): Promise<SkillDefinition[]> {
    return (await this.all()).filter((skill) => skill.enabled);
  }

  async summaries(): Promise<SkillSummary[]> {
    const skills = await this.all();
    return skills.map((skill) => {
      const parsed = parseSkill(skill);
      return {
        id: skill.id,
        name: skill.name,
        enabled: skill.enabled,
        packaged: skill.source === "packaged",
        summary: parsed.summary,
        tools: parsed.tools.map((tool) => tool.name),
        errors: parsed.errors,
        body: skill.body,
      };
    });
  }

  /** First run and every start: add new packaged skills, refresh changed enabled ones. */
  seed(packaged: readonly PackagedSkill[]): Promise<void> {
    return this.change(async (skills) => {
      const deleted = new Set(((await this.store.get(DELETED_PACKAGED_KEY)) as string[] | undefined) ?? []);
      for (const skill of packaged) {
        if (deleted.has(skill.id)) continue;
        const hash = textHash(skill.body);
        const stored = skills.find((candidate) => candidate.id === skill.id);
        if (!stored) {
          skills.push({
            id: skill.id,
            name: skill.name,
            enabled: skill.enabledByDefault,
            body: skill.body,
            source: "packaged",
            packagedHash: hash,
          });
        } else if (stored.source === "packaged" && stored.enabled && stored.packagedHash !== hash) {
          stored.body = skill.body;
          stored.name = skill.name;
          stored.packagedHash = hash;
        }
      }
      return skills;
    });
  }

  /** Import pasted or file text; throws SkillImportError (nothing stored) when malformed. */
  import(markdown: string): Promise<SkillDefinition> {
    let added: SkillDefinition | undefined;
    return this.change(async (skills) => {
      const others = parseSkills(skills).flatMap((parsed) => parsed.tools.map((tool) => tool.name));
      added = importSkill(markdown, { existingIds: skills.map((skill) => skill.id), otherToolNames: others });
      return [...skills, added];
    }).then(() => added as SkillDefinition);
  }

  setEnabled(id: string, enabled: boolean): Promise<void> {
    return this.change(async (skills) => {
      const skill = skills.find((candidate) => candidate.id === id);
      if (!skill) throw new Error(`No skill "${id}"; reload the settings page.`);
      skill.enabled = enabled;
      return skills;
    });
  }

  remove(id: string): Promise<void> {
    return this.change(async (skills) => {
      const skill = skills.find((candidate) => candidate.id === id);
      if (!skill) return skills;
      if (skill.source === "packaged") {
        const deleted = ((await this.store.get(DELETED_PACKAGED_KEY)) as string[] | undefined) ?? [];
        await this.store.set(DELETED_PACKAGED_KEY, [...new Set([...deleted, id])]);
      }
      return skills.filter((candidate) => candidate.id !== id);
    });
  }

  private change(edit: (skills: SkillDefinition[]) => Promise<SkillDefinition[]>): Promise<void> {
    const next = this.queue.then(async () => {
      const skills = await edit(await this.all());
      await this.store.set(CUSTOM_SKILLS_KEY, skills as unknown as Parameters<Store["set"]>[1]);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
