// Attack: burn CPU forever (an LLM's accidental `while (true)`).
// Contained when the service kills it at the wall-clock limit: status timeout.
let x = 0;
for (;;) { x++; }
