// The playground's only way to the service: same-origin fetch with the API
// key (kept in sessionStorage only) as a Bearer token. Errors come back as
// ApiError with the service's {"error":{"code","message"}} and, for 429,
// Retry-After; explain() turns one into a sentence a person can act on.

const kKeyName = 'coderunner.apiKey';
const listeners = new Set();

export function apiKey() {
  return sessionStorage.getItem(kKeyName) || '';
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(kKeyName, key);
  else sessionStorage.removeItem(kKeyName);
}

// fn(err) is called for every 401 and 429 any call meets, so the page can
// show one banner whatever tab made the call.
export function onAuthProblem(fn) {
  listeners.add(fn);
}

export class ApiError extends Error {
  constructor(status, body, retryAfter) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || (status === 0 ? 'unreachable' : `http_${status}`);
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

// A sentence for a person: what happened and what to do.
export function explain(err) {
  if (!(err instanceof ApiError)) return String(err && err.message ? err.message : err);
  switch (err.status) {
    case 0:
      return 'coderunner did not answer: is the service running? ' + err.message;
    case 401:
      return apiKey()
        ? `The API key was refused (401 ${err.code}): check it and enter it again above.`
        : `This coderunner needs an API key (401 ${err.code}): enter one above.`;
    case 429: {
      const wait = err.retryAfter ? ` Retry after ${err.retryAfter} s.` : '';
      return `Too many requests (429 ${err.code}): ${err.message}.${wait}`;
    }
    default:
      return `${err.status} ${err.code}: ${err.message}`;
  }
}

function headers(extra = {}) {
  const h = {...extra};
  const key = apiKey();
  if (key) h.Authorization = `Bearer ${key}`;
  return h;
}

async function failure(res) {
  let body = null;
  try {
    body = await res.json();
  } catch (_) {
    body = null;
  }
  const err = new ApiError(res.status, body, res.headers.get('Retry-After'));
  if (res.status === 401 || res.status === 429) listeners.forEach((fn) => fn(err));
  return err;
}

async function send(method, path, body, signal) {
  const init = {method, headers: headers(), signal, cache: 'no-store'};
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  try {
    return await fetch(path, init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, {error: {code: 'unreachable', message: e.message}});
  }
}

// JSON in, JSON out. Resolves with {status, body} for any 2xx; throws
// ApiError otherwise.
export async function request(method, path, body, {signal} = {}) {
  const res = await send(method, path, body, signal);
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  return {status: res.status, body: text ? JSON.parse(text) : null};
}

export const get = (path, opts) => request('GET', path, undefined, opts);
export const post = (path, body, opts) => request('POST', path, body, opts);
export const del = (path, opts) => request('DELETE', path, undefined, opts);

// The bytes of a file route (an artifact, a sandbox file) as a Blob.
export async function fetchBlob(path, {signal} = {}) {
  const res = await send('GET', path, undefined, signal);
  if (!res.ok) throw await failure(res);
  return res.blob();
}

// Server-Sent Events over fetch (EventSource cannot send the key):
// yields {event, data} with data parsed as JSON (or the raw string) until
// the stream ends or `signal` aborts.
export async function* events(path, {signal} = {}) {
  const res = await send('GET', path, undefined, signal);
  if (!res.ok) throw await failure(res);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, {stream: true});
    let cut;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const parsed = parseEvent(block);
      if (parsed) yield parsed;
    }
  }
}

function parseEvent(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
  }
  if (!data.length) return null;
  const raw = data.join('\n');
  try {
    return {event, data: JSON.parse(raw)};
  } catch (_) {
    return {event, data: raw};
  }
}
