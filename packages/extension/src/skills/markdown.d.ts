/** Packaged skills are bundled as text (esbuild's `.md` text loader in scripts/build.ts). */
declare module "*.md" {
  const text: string;
  export default text;
}
