// The conformance runner (@modelcontextprotocol/conformance) calls
// fs.globSync, which Node has only from 22 on; the host's node is 20 (the
// version of the node runtime image). Loaded with `node --import` before
// the runner, this hands it an fs with a globSync (fs-hooks.mjs).
import { register } from 'node:module';

register('./fs-hooks.mjs', import.meta.url);
