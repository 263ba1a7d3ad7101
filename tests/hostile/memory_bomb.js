// Attack: grow the heap without bound (a memory bomb in Node).
// Contained when the memory limit kills it (oom) or V8 gives up (failed).
const hog = [];
for (;;) hog.push(Buffer.alloc(16 * 1024 * 1024, 1));
