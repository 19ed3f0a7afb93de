// The emoji table the build generates (scripts/build_web.mjs): [name, code, aliases] rows.
declare module 'confab:emoji' {
  const data: Array<[string, string, string[]]>;
  export default data;
}
declare module '*.css';
