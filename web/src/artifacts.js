// A job's artifacts (result.artifacts) listed in a <ul>: each fetched with
// the key (api.fetchBlob) and shown as an <img> from a blob: URL typed as
// the image it claims to be by its extension (never text/html), or as a
// text preview (the first 64 KiB) in a <pre>; anything else only gets its
// download button. Downloads save the blob as application/octet-stream.
// A name is shown as text: a program chooses it.
import * as api from './api.js';
import {el, formatBytes, setChildren} from './dom.js';

const kImageTypes = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};
const kTextExtensions = new Set(['txt', 'csv', 'tsv', 'json', 'md', 'log', 'py', 'js', 'ts', 'sh']);
const kPreviewBytes = 64 * 1024;

function extension(path) {
  const base = path.split('/').pop();
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

// The artifact route for a path: each segment percent-encoded, the slashes
// kept.
export function artifactUrl(jobId, path) {
  return `/v1/jobs/${encodeURIComponent(jobId)}/artifacts/` + path.split('/').map(encodeURIComponent).join('/');
}

export class ArtifactList {
  // list: the <ul> to fill (#run-artifacts).
  constructor(list) {
    this.list = list;
    this.urls = new Set();
    this.generation = 0;
  }

  // Empties the list and revokes every blob: URL it made.
  clear() {
    this.generation++;
    for (const u of this.urls) URL.revokeObjectURL(u);
    this.urls.clear();
    setChildren(this.list);
  }

  // Lists `artifacts` ([{path, size, ...}]) of job `jobId`, then each
  // `skipped` entry ({path, reason}) as a note.
  show(jobId, artifacts, skipped) {
    this.clear();
    const generation = this.generation;
    for (const a of artifacts || []) this.list.append(this.entry(jobId, a, generation));
    for (const s of skipped || []) {
      this.list.append(el('li', {class: 'artifact-skipped'}, `Not kept: ${s.path} (${s.reason})`));
    }
  }

  url(blob) {
    const u = URL.createObjectURL(blob);
    this.urls.add(u);
    return u;
  }

  entry(jobId, artifact, generation) {
    const ext = extension(artifact.path);
    const name = artifact.path.split('/').pop() || 'artifact';
    let blob = null;
    const fetchOnce = async () => {
      if (!blob) blob = await api.fetchBlob(artifactUrl(jobId, artifact.path));
      return blob;
    };
    const problem = el('p', {class: 'artifact-error', hidden: true});
    const fail = (e) => {
      problem.textContent = api.explain(e);
      problem.hidden = false;
    };
    const download = el(
      'button',
      {type: 'button', class: 'artifact-download', 'aria-label': `Download ${artifact.path}`},
      'Download',
    );
    download.addEventListener('click', async () => {
      try {
        const bytes = new Blob([await fetchOnce()], {type: 'application/octet-stream'});
        const href = this.url(bytes);
        const a = el('a', {href, download: name});
        document.body.append(a);
        a.click();
        a.remove();
      } catch (e) {
        fail(e);
      }
    });
    const li = el(
      'li',
      {class: 'artifact', dataset: {path: artifact.path}},
      el(
        'div',
        {class: 'artifact-head'},
        el('span', {class: 'artifact-name'}, artifact.path),
        el('span', {class: 'artifact-size'}, formatBytes(artifact.size)),
        download,
      ),
      problem,
    );
    const show = async (render) => {
      try {
        const b = await fetchOnce();
        if (generation === this.generation) li.append(await render(b));
      } catch (e) {
        fail(e);
      }
    };
    if (kImageTypes[ext]) {
      show((b) =>
        el('img', {
          class: 'artifact-image',
          alt: `Artifact ${artifact.path}`,
          src: this.url(new Blob([b], {type: kImageTypes[ext]})),
          // An SVG in <img> runs nothing, but its blob: URL opened in a tab
          // ("Open image in new tab") would be a same-origin document: once
          // drawn, the URL goes, so there is nothing left to open.
          onload: ext === 'svg' ? (e) => URL.revokeObjectURL(e.target.src) : null,
        }),
      );
    } else if (kTextExtensions.has(ext)) {
      show(async (b) => {
        const text = await b.slice(0, kPreviewBytes).text();
        const more = b.size > kPreviewBytes ? `\n… (the first 64 KiB of ${formatBytes(b.size)})` : '';
        return el('pre', {class: 'artifact-preview output', tabindex: '0'}, text + more);
      });
    }
    return li;
  }
}
