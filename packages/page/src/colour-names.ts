/**
 * Words for a colour a person sees: what an element whose only content is its background colour
 * (a swatch, a colour chip, a shade to pick) is called in the tree, e.g. `lime #00ff00`,
 * `light red #e6a1a1`.
 *
 * The word is the everyday CSS keyword when the colour is exactly one (red, lime, olive, teal,
 * grey...), otherwise a hue family (red, orange, yellow, green, cyan, blue, purple, magenta; grey,
 * black, white for the unsaturated) with `dark`/`light` and `greyish` where they fit, so "the
 * shades of red" are the lines that end in "red". The hex is always there: it is exact.
 *
 * Invariants: pure functions of the computed colour string (`rgb(...)`/`rgba(...)`, what
 * getComputedStyle answers); a colour under half opaque is no colour (the box shows what is
 * behind it).
 */

/** Everyday keywords, by hex; where CSS has two names for one colour, the more common one. */
const KEYWORDS: Readonly<Record<string, string>> = {
  "#000000": "black",
  "#ffffff": "white",
  "#ff0000": "red",
  "#00ff00": "lime",
  "#0000ff": "blue",
  "#ffff00": "yellow",
  "#00ffff": "cyan",
  "#ff00ff": "magenta",
  "#808080": "grey",
  "#c0c0c0": "silver",
  "#800000": "maroon",
  "#808000": "olive",
  "#008000": "green",
  "#800080": "purple",
  "#008080": "teal",
  "#000080": "navy",
  "#ffa500": "orange",
  "#ffc0cb": "pink",
  "#ffd700": "gold",
  "#a52a2a": "brown",
  "#ee82ee": "violet",
  "#4b0082": "indigo",
  "#f5f5dc": "beige",
  "#40e0d0": "turquoise",
  "#ff7f50": "coral",
  "#fa8072": "salmon",
  "#d3d3d3": "light grey",
  "#a9a9a9": "dark grey",
};

/** Hue families by the upper bound of their hue range (degrees). */
const HUES: ReadonlyArray<readonly [number, string]> = [
  [15, "red"],
  [45, "orange"],
  [70, "yellow"],
  [165, "green"],
  [195, "cyan"],
  [255, "blue"],
  [290, "purple"],
  [340, "magenta"],
  [360, "red"],
];

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** The colour of a computed `rgb()`/`rgba()` string, or undefined when none shows (transparent). */
export function parseComputedColour(value: string): Rgb | undefined {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)$/.exec(
    value.trim(),
  );
  if (!m) return undefined;
  if (m[4] !== undefined) {
    const alpha = Number(m[4]) / (m[5] ? 100 : 1);
    if (alpha < 0.5) return undefined;
  }
  return { r: Math.round(Number(m[1])), g: Math.round(Number(m[2])), b: Math.round(Number(m[3])) };
}

export function hexOf({ r, g, b }: Rgb): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** The word a person would use for the colour (see the module comment). */
export function colourWord(rgb: Rgb): string {
  const keyword = KEYWORDS[hexOf(rgb)];
  if (keyword) return keyword;
  const r = rgb.r / 255;
  const g = rgb.g / 255;
  const b = rgb.b / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const lightness = (max + min) / 2;
  const chroma = max - min;
  const saturation = chroma === 0 ? 0 : chroma / (1 - Math.abs(2 * lightness - 1));
  if (saturation < 0.12 || chroma < 0.06) {
    if (lightness < 0.12) return "black";
    if (lightness > 0.92) return "white";
    return lightness < 0.35 ? "dark grey" : lightness > 0.7 ? "light grey" : "grey";
  }
  let hue: number;
  if (max === r) hue = ((g - b) / chroma) % 6;
  else if (max === g) hue = (b - r) / chroma + 2;
  else hue = (r - g) / chroma + 4;
  hue = (hue * 60 + 360) % 360;
  const family = HUES.find(([upTo]) => hue < upTo)?.[1] ?? "red";
  // A dark orange is what people call brown.
  if (family === "orange" && lightness < 0.35) return "brown";
  const words: string[] = [];
  if (lightness < 0.3) words.push("dark");
  else if (lightness > 0.7) words.push("light");
  if (saturation < 0.4) words.push("greyish");
  words.push(family);
  return words.join(" ");
}

/** `lime #00ff00` for a computed colour string; "" when no colour shows. */
export function describeColour(computed: string): string {
  const rgb = parseComputedColour(computed);
  return rgb ? `${colourWord(rgb)} ${hexOf(rgb)}` : "";
}
