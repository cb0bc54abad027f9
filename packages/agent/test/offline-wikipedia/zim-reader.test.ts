/**
 * The ZIM reader on a real archive made by Debian's zim-tools (`zimwriterfs`, zstd clusters)
 * from the pages in packages/testkit/fixtures/zim/source (regenerate: see that folder's
 * README). Reads through a file-backed ZimByteSource, as the add-on reads OPFS and the runner
 * reads `--zim FILE`.
 */
import { open, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeXzZim } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import {
  articleText,
  type ZimByteSource,
  ZimFormatError,
  ZimReader,
} from "../../src/offline-wikipedia/index.js";

const ZIM_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../testkit/fixtures/zim");
const ZIM = join(ZIM_DIR, "test-wikipedia.zim");

function bytesSource(bytes: Uint8Array): ZimByteSource {
  return { size: bytes.length, read: async (offset, length) => bytes.slice(offset, offset + length) };
}

async function fileSource(path: string): Promise<ZimByteSource & { close(): Promise<void> }> {
  const handle = await open(path, "r");
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buffer = new Uint8Array(length);
      await handle.read(buffer, 0, length, offset);
      return buffer;
    },
    close: () => handle.close(),
  };
}

describe("ZimReader", () => {
  it("finds an article by title and reads its text and the archive's metadata", async () => {
    const source = await fileSource(ZIM);
    try {
      const zim = await ZimReader.open(source);
      const entry = await zim.findByTitle("Ada Lovelace");
      expect(entry).toMatchObject({ namespace: "C", url: "Ada_Lovelace", title: "Ada Lovelace" });
      const { bytes } = await zim.content(entry!);
      const text = articleText(new TextDecoder().decode(bytes));
      expect(text).toContain(
        "Augusta Ada King, Countess of Lovelace (1815–1852) was an English mathematician",
      );
      expect(await zim.metadata("Language")).toBe("eng");
      expect(await zim.metadata("Date")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(await zim.metadata("Source")).toBe("https://en.wikipedia.org/");
      // Loose match: underscores and case do not matter.
      expect((await zim.findByTitle("lighthouse_of_alexandria"))?.url).toBe("Lighthouse_of_Alexandria");
      expect(await zim.findByTitle("No Such Article")).toBeUndefined();
    } finally {
      await source.close();
    }
  });

  it("reads an article out of an xz-compressed cluster, following a redirect", async () => {
    const page = (name: string) => readFile(join(ZIM_DIR, "source", name));
    const archive = writeXzZim(
      [
        {
          namespace: "C",
          url: "Ada_Lovelace",
          title: "Ada Lovelace",
          mimeType: "text/html",
          body: await page("Ada_Lovelace"),
        },
        {
          namespace: "C",
          url: "Lighthouse_of_Alexandria",
          title: "Lighthouse of Alexandria",
          mimeType: "text/html",
          body: await page("Lighthouse_of_Alexandria"),
        },
        { namespace: "C", url: "Lovelace", title: "Lovelace", redirectTo: "Ada_Lovelace" },
        { namespace: "M", url: "Language", mimeType: "text/plain", body: "eng" },
        { namespace: "M", url: "Title", mimeType: "text/plain", body: "Test Wikipedia (xz)" },
      ],
      "Ada_Lovelace",
    );
    const zim = await ZimReader.open(bytesSource(archive));
    // The one cluster really is xz (compression 4 in its info byte): the path under test.
    const clusterPos = Number(Buffer.from(archive).readBigUInt64LE(zim.header.clusterPtrPos));
    expect(archive[clusterPos]! & 0x0f).toBe(4);

    const entry = await zim.findByTitle("Lighthouse of Alexandria");
    const text = articleText(new TextDecoder().decode((await zim.content(entry!)).bytes));
    expect(text).toContain("Lighthouse of Alexandria");
    const redirect = await zim.findByTitle("Lovelace");
    expect(redirect?.redirectIndex).toBeDefined();
    const followed = await zim.content(redirect!);
    expect(followed.entry.url).toBe("Ada_Lovelace");
    expect(articleText(new TextDecoder().decode(followed.bytes))).toContain(
      "Augusta Ada King, Countess of Lovelace",
    );
    expect(await zim.metadata("Title")).toBe("Test Wikipedia (xz)");
    expect(await zim.metadata("Language")).toBe("eng");
  });

  it("refuses a file that is not a ZIM archive, saying what to pick", async () => {
    const bytes = new TextEncoder().encode("<!doctype html>".padEnd(200, " "));
    const source: ZimByteSource = { size: bytes.length, read: async (o, l) => bytes.slice(o, o + l) };
    await expect(ZimReader.open(source)).rejects.toThrow(ZimFormatError);
    await expect(ZimReader.open(source)).rejects.toThrow(/pick a \.zim file/);
  });
});
