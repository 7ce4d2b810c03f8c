// A tus 1.0.0 client for the browser (creation, core, termination), for Tuner's own endpoint:
// POST creates the upload (Upload-Length, Upload-Metadata filename), PATCH sends it in chunks from
// the offset the server confirmed, HEAD asks where it stands. The upload's URL is kept in
// localStorage under the file's name, size and date, so picking the same file after a reload (or a
// crash of the browser) continues from the server's offset instead of starting again.

const VERSION = '1.0.0';
const PREFIX = 'tuner.tus.';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class TusError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** The localStorage key of a file: its name, size and last-modified time. */
export function storageKey(file) {
  return `${PREFIX}${file.name}:${file.size}:${file.lastModified}`;
}

/** Uploads this browser started and did not finish: [{key, name, size, url}]. */
export function unfinished() {
  const found = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(PREFIX)) continue;
    try {
      const entry = JSON.parse(localStorage.getItem(key));
      if (entry && entry.url) found.push({ key, ...entry });
    } catch {}
  }
  return found;
}

function base64(text) {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}
import { paths } from './api-paths.js';

export class TusUpload {
  /**
   * `onProgress(offset, size)` after every chunk the server confirmed; `onState(state, detail)`
   * with uploading, paused, complete, cancelled or error.
   */
  constructor(file, { endpoint = paths.createUpload, chunkSize = 8 << 20, onProgress, onState } = {}) {
    this.file = file;
    this.endpoint = endpoint;
    this.chunkSize = chunkSize;
    this.onProgress = onProgress || (() => {});
    this.onState = onState || (() => {});
    this.key = storageKey(file);
    this.url = null;
    this.offset = 0;
    /** Where this page found the upload when it started: > 0 when it resumed one. */
    this.resumedFrom = 0;
    this.running = null;
    this.abort = null;
    this.stopped = false;
  }

  headers(extra = {}) {
    return { 'Tus-Resumable': VERSION, ...extra };
  }

  /** Starts, or continues after pause() or an error. Resolves when the loop stops. */
  start() {
    if (this.running) return this.running;
    this.stopped = false;
    this.running = this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async run() {
    this.onState('uploading');
    let failures = 0;
    try {
      if (!this.url) await this.locate();
      while (this.offset < this.file.size && !this.stopped) {
        try {
          await this.send();
          failures = 0;
        } catch (error) {
          if (this.stopped) break;
          // 409: another offset on the server; 423: a PATCH still running there (say, the one a
          // reload cut off). Both: ask where it stands and go on. Network errors: the same, after
          // a pause that doubles, five times at most.
          const retryable = !(error instanceof TusError) || [409, 423, 500, 502, 503, 504].includes(error.status);
          if (!retryable || ++failures > 5) throw error;
          await sleep(Math.min(8000, 250 * 2 ** failures));
          await this.head();
        }
      }
      if (this.stopped) return;
      localStorage.removeItem(this.key);
      this.onProgress(this.offset, this.file.size);
      this.onState('complete');
    } catch (error) {
      if (this.stopped) return;
      this.onState('error', error.message);
    }
  }

  /** Finds the upload this browser started for the file (HEAD), or creates one (POST). */
  async locate() {
    let stored = null;
    try {
      stored = JSON.parse(localStorage.getItem(this.key) || 'null');
    } catch {}
    if (stored && stored.url) {
      this.url = stored.url;
      try {
        await this.head();
        this.resumedFrom = this.offset;
        return;
      } catch (error) {
        // Gone (404), expired (410) or another file: start again.
        if (!(error instanceof TusError)) throw error;
        localStorage.removeItem(this.key);
        this.url = null;
        this.offset = 0;
      }
    }
    const metadata = [`filename ${base64(this.file.name)}`];
    if (this.file.type) metadata.push(`filetype ${base64(this.file.type)}`);
    const response = await fetch(this.endpoint, {
      method: 'POST', credentials: 'same-origin',
      headers: this.headers({ 'Upload-Length': String(this.file.size), 'Upload-Metadata': metadata.join(',') }),
    });
    if (response.status !== 201) throw await this.failure(response, 'the upload could not be created');
    this.url = new URL(response.headers.get('Location'), location.href).href;
    this.offset = 0;
    localStorage.setItem(this.key, JSON.stringify({ url: this.url, name: this.file.name, size: this.file.size }));
  }

  /** Asks the server for the upload's offset. */
  async head() {
    const response = await fetch(this.url, { method: 'HEAD', credentials: 'same-origin', headers: this.headers(),
      cache: 'no-store' });
    if (!response.ok) throw new TusError(`the server answered ${response.status} for the upload`, response.status);
    const length = Number(response.headers.get('Upload-Length'));
    if (response.headers.has('Upload-Length') && length !== this.file.size) {
      throw new TusError('the upload on the server is of another file', 409);
    }
    this.offset = Number(response.headers.get('Upload-Offset')) || 0;
    this.onProgress(this.offset, this.file.size);
  }

  /** One PATCH of up to `chunkSize` bytes from the confirmed offset. */
  async send() {
    const end = Math.min(this.file.size, this.offset + this.chunkSize);
    this.abort = new AbortController();
    const response = await fetch(this.url, {
      method: 'PATCH', credentials: 'same-origin', signal: this.abort.signal,
      headers: this.headers({ 'Upload-Offset': String(this.offset), 'Content-Type': 'application/offset+octet-stream' }),
      body: this.file.slice(this.offset, end),
    });
    if (response.status !== 204) throw await this.failure(response, 'a part of the upload was refused');
    const offset = Number(response.headers.get('Upload-Offset'));
    if (!response.headers.has('Upload-Offset') || !Number.isFinite(offset)) return this.head();
    this.offset = offset;
    this.onProgress(this.offset, this.file.size);
  }

  async failure(response, words) {
    let text = '';
    try {
      text = (await response.text()).trim().slice(0, 200);
    } catch {}
    return new TusError(`${words}: ${response.status}${text ? ` ${text}` : ''}`, response.status);
  }

  /** Stops after aborting the PATCH in flight; the server keeps every byte it synced. */
  pause() {
    this.stopped = true;
    if (this.abort) this.abort.abort();
    this.onState('paused');
  }

  /** Stops and removes the upload from the server (tus termination) and from this browser. */
  async cancel() {
    this.stopped = true;
    if (this.abort) this.abort.abort();
    await this.running;
    localStorage.removeItem(this.key);
    if (this.url) {
      // A PATCH the abort cut off may still hold the upload for a moment (423): try a few times.
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await fetch(this.url, { method: 'DELETE', credentials: 'same-origin', headers: this.headers() });
        if (response.status !== 423) break;
        await sleep(300 * (attempt + 1));
      }
    }
    this.onState('cancelled');
  }
}
