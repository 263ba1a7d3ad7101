// Plain words for a job's result (GET /v1/jobs/{id}'s record, or its
// `result` event): what happened, its exit, its metrics. Pure functions; the
// Run tab and the Sandboxes tab put their output on the page as text.
import {formatBytes, formatMs} from './dom.js';

const kMiB = 1024 * 1024;

// A sentence for a terminal status, or '' when there is nothing to add to
// the status word (a success).
//   r: the result object ({status, exit_code, signal, error, limits, metrics}).
export function statusSentence(r) {
  const limits = r.limits || {};
  const metrics = r.metrics || {};
  const error = r.error ? `${r.error.code}: ${r.error.message}` : '';
  switch (r.status) {
    case 'succeeded':
      return '';
    case 'timeout':
      if (limits.cpu_ms && metrics.cpu_ms >= limits.cpu_ms) {
        return `Stopped: it used more than its ${limits.cpu_ms} ms of CPU time.`;
      }
      return limits.timeout_ms
        ? `Stopped: it ran past its ${limits.timeout_ms} ms timeout.`
        : 'Stopped: it ran past its timeout.';
    case 'oom':
      return limits.memory_bytes
        ? `Killed: it used more than its ${Math.round(limits.memory_bytes / kMiB)} MiB memory limit.`
        : 'Killed: it used more than its memory limit.';
    case 'cancelled':
      return 'Cancelled: it was stopped before it finished.';
    case 'error':
      return `Error (the service or the engine, not the program): ${error || 'no detail given'}.`;
    case 'failed':
      if (error) return `Failed: ${error}.`;
      if (r.signal) return `Failed: killed by ${r.signal}.`;
      return `Failed: it exited with code ${r.exit_code}.`;
    default:
      return error;
  }
}

// "Exit code 0", "Exit code 137 (SIGKILL)", or "No exit code" when it never
// ran to an exit.
export function exitText(r) {
  if (r.exit_code === null || r.exit_code === undefined) {
    return r.signal ? `Signal ${r.signal}` : 'No exit code';
  }
  return r.signal ? `Exit code ${r.exit_code} (${r.signal})` : `Exit code ${r.exit_code}`;
}

// "wall 152 ms · run 11 ms · CPU 31 ms · memory peak 4.1 MiB"; fields the
// result does not have are left out.
export function metricsText(metrics) {
  if (!metrics) return '';
  const parts = [];
  if (metrics.wall_ms !== undefined && metrics.wall_ms !== null) parts.push(`wall ${formatMs(metrics.wall_ms)}`);
  if (metrics.run_ms !== undefined && metrics.run_ms !== null) parts.push(`run ${formatMs(metrics.run_ms)}`);
  if (metrics.cpu_ms !== undefined && metrics.cpu_ms !== null) parts.push(`CPU ${formatMs(metrics.cpu_ms)}`);
  if (metrics.memory_peak_bytes) parts.push(`memory peak ${formatBytes(metrics.memory_peak_bytes)}`);
  return parts.join(' · ');
}

// Notes on what was cut: one per truncated stream.
export function truncationNotes(r) {
  const cap = r.limits && r.limits.output_bytes ? ` at ${formatBytes(r.limits.output_bytes)}` : '';
  const notes = [];
  if (r.stdout_truncated) notes.push(`stdout was cut${cap}.`);
  if (r.stderr_truncated) notes.push(`stderr was cut${cap}.`);
  return notes;
}
