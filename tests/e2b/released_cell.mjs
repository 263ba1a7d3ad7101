// A Python cell that prints "ready", then waits (up to 15 s) for
// /home/user/go and prints "released" once it is there ("never released"
// otherwise): a check whose callback writes the file on "ready" passes only
// if the output streamed while the cell ran. Shared by
// code_interpreter_check.mjs and fleet_check.mjs.
export const kReleasedCell = [
  'import os, time',
  "print('ready', flush=True)",
  'for _ in range(300):',
  "    if os.path.exists('/home/user/go'): break",
  '    time.sleep(0.05)',
  "print('released' if os.path.exists('/home/user/go') else 'never released')",
].join('\n');
