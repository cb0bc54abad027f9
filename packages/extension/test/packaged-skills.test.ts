/**
 * Packaged skills across add-on versions: each "start" is a fresh SkillsStore over the same
 * storage area (what the background page does after an update or a browser restart), seeded
 * with the packaged skills of that version.
 */
import type { SkillDefinition } from "@webbrain/agent";
import { describe, expect, it } from "vitest";
import { LocalAreaStore } from "../src/scheduling/local-area-store.js";
import type { PackagedSkill } from "../src/skills/packaged-skills.js";
import { CUSTOM_SKILLS_KEY, SkillsStore } from "../src/skills/skills-store.js";
import { MemoryArea } from "./memory-area.js";

function packaged(body: string): PackagedSkill {
  return { id: "wikipedia", name: "Wikipedia", body, enabledByDefault: true };
}

const V1 = "# Wikipedia\nLook things up on Wikipedia (version 1).";
const V2 = "# Wikipedia\nLook things up on Wikipedia (version 2, better instructions).";

async function start(area: MemoryArea, version: string): Promise<SkillsStore> {
  const store = new SkillsStore(new LocalAreaStore(area));
  await store.seed([packaged(version)]);
  return store;
}

async function stored(area: MemoryArea): Promise<SkillDefinition[]> {
  return ((await area.get(CUSTOM_SKILLS_KEY))[CUSTOM_SKILLS_KEY] as SkillDefinition[] | undefined) ?? [];
}

describe("packaged skills", () => {
  it("are seeded once on first run, enabled", async () => {
    const area = new MemoryArea();
    await start(area, V1);
    await start(area, V1);
    const skills = await stored(area);
    expect(skills).toHaveLength(1);
    expect(skills[0]).toMatchObject({ id: "wikipedia", enabled: true, body: V1, source: "packaged" });
  });

  it("a changed packaged skill refreshes its stored copy while it is enabled", async () => {
    const area = new MemoryArea();
    await start(area, V1);
    await start(area, V2);
    const skills = await stored(area);
    expect(skills).toHaveLength(1);
    expect(skills[0]?.body).toBe(V2);
    expect(skills[0]?.enabled).toBe(true);
  });

  it("a changed packaged skill the user disabled keeps the user's copy and stays disabled", async () => {
    const area = new MemoryArea();
    const first = await start(area, V1);
    await first.setEnabled("wikipedia", false);
    await start(area, V2);
    const skills = await stored(area);
    expect(skills).toHaveLength(1);
    expect(skills[0]?.body).toBe(V1);
    expect(skills[0]?.enabled).toBe(false);
  });

  it("a deleted packaged skill is never re-added, not even when a new version changes it", async () => {
    const area = new MemoryArea();
    const first = await start(area, V1);
    await first.remove("wikipedia");
    expect(await stored(area)).toEqual([]);
    await start(area, V1);
    expect(await stored(area)).toEqual([]);
    await start(area, V2);
    expect(await stored(area)).toEqual([]);
  });

  it("a user's skill with a packaged skill's id is never overwritten by seeding", async () => {
    const area = new MemoryArea();
    const mine: SkillDefinition = {
      id: "wikipedia",
      name: "Mine",
      enabled: true,
      body: "# Mine\nMy own.",
      source: "user",
    };
    await area.set({ [CUSTOM_SKILLS_KEY]: [mine] });
    await start(area, V2);
    expect(await stored(area)).toEqual([mine]);
  });
});
