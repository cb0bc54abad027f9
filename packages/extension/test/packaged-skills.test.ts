/**
 * Packaged skills across add-on versions: each "start" is a fresh SkillsStore over the same
 * storage area (what the background page does after an update or a browser restart), seeded
 * with the packaged skills of that version.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importSkill, parseSkill, type SkillDefinition } from "@webbrain/agent";
import { describe, expect, it } from "vitest";
import { LocalAreaStore } from "../src/scheduling/local-area-store.js";
import { PACKAGED_SKILLS, type PackagedSkill } from "../src/skills/packaged-skills.js";
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

/** The add-on's packaged skill files, as the build bundles them (skills/<id>.md). */
const SKILLS_DIR = fileURLToPath(new URL("../skills/", import.meta.url));

describe("the packaged skill files", () => {
  it("every file in skills/ is packaged, and every packaged skill is its file's text", async () => {
    const files = (await readdir(SKILLS_DIR)).filter((name) => name.endsWith(".md")).sort();
    expect(PACKAGED_SKILLS.map((skill) => `${skill.id}.md`).sort()).toEqual(files);
    for (const skill of PACKAGED_SKILLS) {
      expect(skill.body).toBe(await readFile(join(SKILLS_DIR, `${skill.id}.md`), "utf8"));
    }
  });

  it("are all seeded on first run, enabled as spec 000 says, and parse without an error", async () => {
    const area = new MemoryArea();
    await new SkillsStore(new LocalAreaStore(area)).seed(PACKAGED_SKILLS);
    const skills = await stored(area);
    expect(skills.map((skill) => [skill.id, skill.enabled, skill.source])).toEqual([
      ["wikipedia", true, "packaged"],
      ["freeskillz-xyz", true, "packaged"],
    ]);
    const taken = new Set<string>();
    for (const skill of skills) {
      const parsed = parseSkill(skill, taken);
      expect(parsed.errors, skill.id).toEqual([]);
      // The manifest fences never reach the prompt.
      expect(parsed.instructions).not.toContain("webbrain-tools");
      expect(parsed.instructions).not.toContain("webbrain-skill");
      for (const tool of parsed.tools) taken.add(tool.name);
    }
    // And importing one as a user would (the stricter path) accepts it too.
    for (const skill of PACKAGED_SKILLS) expect(() => importSkill(skill.body)).not.toThrow();
  });

  it("FreeSkillz.xyz declares its three tools on the service's documented routes", async () => {
    const skill = PACKAGED_SKILLS.find((s) => s.id === "freeskillz-xyz")!;
    const parsed = parseSkill({ id: skill.id, name: skill.name, enabled: true, body: skill.body });
    const byName = new Map(parsed.tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()]).toEqual([
      "read_youtube_transcript",
      "resolve_public_media",
      "download_public_media",
    ]);

    const transcript = byName.get("read_youtube_transcript")!;
    expect(transcript).toMatchObject({
      kind: "http",
      method: "POST",
      endpoint: "https://freeskillz.xyz/v1/youtube/transcript",
      resultPolicy: "untrusted",
      activeTabUrlArg: "url",
      modes: ["ask", "act", "dev"],
    });
    // The service pages long transcripts by these three fields; the tool must offer them.
    expect(Object.keys(transcript.parameters.properties)).toEqual(
      expect.arrayContaining(["url", "lang", "text_offset", "text_limit", "include_segments"]),
    );
    expect(transcript.inputUrlAllowlist?.map((rule) => rule.host)).toEqual(["youtube.com", "youtu.be"]);

    expect(byName.get("resolve_public_media")).toMatchObject({
      kind: "http",
      method: "POST",
      endpoint: "https://freeskillz.xyz/v1/media/resolve",
      parameters: { required: ["url"] },
    });

    const download = byName.get("download_public_media")!;
    expect(download).toMatchObject({
      kind: "httpDownloadJob",
      method: "POST",
      endpoint: "https://freeskillz.xyz/v1/media/jobs",
      // A download job never runs in Ask.
      modes: ["act", "dev"],
      job: {
        idField: "job_id",
        statusEndpoint: "https://freeskillz.xyz/v1/media/jobs/{job_id}",
        fileEndpoint: "https://freeskillz.xyz/v1/media/jobs/{job_id}/file",
        cleanupEndpoint: "https://freeskillz.xyz/v1/media/jobs/{job_id}",
      },
    });
  });
});
