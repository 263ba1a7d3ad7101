// A module resolve hook: every import of `fs` or `node:fs` gets
// fs-with-glob.mjs instead, except the import inside that module itself
// (which must reach the real one).
const replacement = new URL('./fs-with-glob.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== replacement) {
    return { url: replacement, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
