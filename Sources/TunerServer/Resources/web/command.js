// Every change the page asks of the server goes through `command`: it carries an Idempotency-Key
// (128 random bits, hex) so the server applies it once however often it arrives, marks the control
// that started it as pending until the answer, and on a network error or a timeout sends the very
// same request again, with the same key.

export class CommandError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** 128 random bits as hex. `crypto.randomUUID` needs a secure context, which a LAN http page is not. */
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `method path` with `body` (JSON) and returns the answer's JSON. Refusals (an HTTP error
 * status) throw a CommandError with the server's words; lost requests are resent with the same key.
 */
export async function command(method, path, body, options = {}) {
  const { control = null, timeout = 20000, attempts = 4 } = options;
  const key = newKey();
  markPending(control, true);
  try {
    for (let attempt = 0; ; attempt++) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeout);
      try {
        const headers = { 'Idempotency-Key': key, Accept: 'application/json' };
        if (body !== undefined) headers['Content-Type'] = 'application/json';
        const response = await fetch(path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: abort.signal,
          credentials: 'same-origin',
        });
        // 409 with Retry-After: an earlier send of this key is still running on the server.
        const retryAfter = Number(response.headers.get('Retry-After'));
        if (response.status === 409 && retryAfter > 0 && attempt + 1 < attempts) {
          await sleep(Math.min(retryAfter, 5) * 1000);
          continue;
        }
        const data = await readJSON(response);
        if (!response.ok) {
          throw new CommandError((data && data.error && data.error.message) || `the server answered ${response.status}`,
            response.status);
        }
        return data;
      } catch (error) {
        if (error instanceof CommandError || attempt + 1 >= attempts) throw error;
        await sleep(400 * 2 ** attempt + Math.random() * 200);
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    markPending(control, false);
  }
}

/** A read: GET `path`, its JSON, or a CommandError with the server's words. */
export async function getJSON(path, { signal } = {}) {
  const response = await fetch(path, { headers: { Accept: 'application/json' }, signal, credentials: 'same-origin' });
  const data = await readJSON(response);
  if (!response.ok) {
    throw new CommandError((data && data.error && data.error.message) || `the server answered ${response.status}`,
      response.status);
  }
  return data;
}

async function readJSON(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function markPending(control, pending) {
  if (!control) return;
  control.classList.toggle('pending', pending);
  if (pending) control.setAttribute('aria-busy', 'true');
  else control.removeAttribute('aria-busy');
  if ('disabled' in control) control.disabled = pending;
}
