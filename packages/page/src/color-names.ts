/**
 * Colours in the words a person would use, for what the tree says about drawings (an SVG
 * circle's fill). A computed colour (`rgb(0, 128, 0)`) that is a common CSS name is said by that
 * name; any other plain colour by its hue family ("blue", "dark green", "light gray").
 *
 * Invariants:
 * - Input is what getComputedStyle answers for `fill`/`stroke`/`color`: `rgb()`/`rgba()`, `none`,
 *   `transparent`, or a paint server `url(...)`. Only plain, not fully transparent colours get a
 *   name; everything else answers undefined (gradients and patterns have no one colour).
 * - Same colour, same word: names shared by two CSS keywords take one of them (aqua/cyan: cyan,
 *   fuchsia/magenta: magenta, grey/gray: gray).
 */

/** CSS keywords a person uses, by their rgb value (`r,g,b`). */
const COMMON_NAMES: Readonly<Record<string, string>> = {
  "0,0,0": "black",
  "255,255,255": "white",
  "128,128,128": "gray",
  "192,192,192": "silver",
  "211,211,211": "light gray",
  "169,169,169": "dark gray",
  "255,0,0": "red",
  "139,0,0": "dark red",
  "128,0,0": "maroon",
  "0,128,0": "green",
  "0,255,0": "lime",
  "0,100,0": "dark green",
  "144,238,144": "light green",
  "128,128,0": "olive",
  "0,0,255": "blue",
  "0,0,139": "dark blue",
  "0,0,128": "navy",
  "173,216,230": "light blue",
  "135,206,235": "sky blue",
  "65,105,225": "royal blue",
  "0,255,255": "cyan",
  "0,128,128": "teal",
  "255,0,255": "magenta",
  "128,0,128": "purple",
  "238,130,238": "violet",
  "75,0,130": "indigo",
  "255,255,0": "yellow",
  "255,215,0": "gold",
  "255,165,0": "orange",
  "255,140,0": "dark orange",
  "255,192,203": "pink",
  "255,105,180": "hot pink",
  "165,42,42": "brown",
  "210,105,30": "chocolate",
  "250,128,114": "salmon",
  "255,127,80": "coral",
  "64,224,208": "turquoise",
  "245,245,220": "beige",
};

const RGB = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%)?)?\s*\)$/;

/** The colour's name, or undefined when it is none, fully transparent, or not one plain colour. */
export function colorName(computed: string): string | undefined {
  const match = RGB.exec(computed.trim());
  if (!match) return undefined;
  const alpha = match[4] === undefined ? 1 : Number(match[4]) / (match[5] ? 100 : 1);
  if (alpha === 0) return undefined;
  const r = Math.round(Number(match[1]));
  const g = Math.round(Number(match[2]));
  const b = Math.round(Number(match[3]));
  return COMMON_NAMES[`${r},${g},${b}`] ?? hueName(r, g, b);
}

/** Hue families, by the hue angle where each one ends (red wraps around at 360). */
const HUE_FAMILIES: ReadonlyArray<readonly [number, string]> = [
  [15, "red"],
  [40, "orange"],
  [66, "yellow"],
  [165, "green"],
  [195, "cyan"],
  [255, "blue"],
  [290, "purple"],
  [335, "magenta"],
  [360, "red"],
];
/** Below this saturation a colour reads as a gray. */
const GRAY_SATURATION = 0.15;

function hueName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  const lightness = (max + min) / 2;
  const chroma = max - min;
  const saturation = chroma === 0 ? 0 : chroma / (1 - Math.abs(2 * lightness - 1));
  if (saturation < GRAY_SATURATION || chroma < 0.08) {
    if (lightness < 0.12) return "black";
    if (lightness > 0.92) return "white";
    return lightness < 0.4 ? "dark gray" : lightness > 0.75 ? "light gray" : "gray";
  }
  const hue = hueAngle(r / 255, g / 255, b / 255, max, chroma);
  const family = HUE_FAMILIES.find(([end]) => hue < end)?.[1] ?? "red";
  // A dark orange is what people call brown.
  if (family === "orange" && lightness < 0.4) return "brown";
  if (lightness < 0.25) return `dark ${family}`;
  if (lightness > 0.8) return family === "red" || family === "magenta" ? "pink" : `light ${family}`;
  return family;
}

function hueAngle(r: number, g: number, b: number, max: number, chroma: number): number {
  let hue: number;
  if (max === r) hue = ((g - b) / chroma) % 6;
  else if (max === g) hue = (b - r) / chroma + 2;
  else hue = (r - g) / chroma + 4;
  const degrees = hue * 60;
  return degrees < 0 ? degrees + 360 : degrees;
}
