// The sign-in page: trades the access token or an API key for a session cookie (HttpOnly, so this
// script never sees it), then returns to the page that sent the browser here (the form's
// `data-next`, which the server checked). It does not load
// app.js: without a session the live connection would only be refused.
import { paths } from './api-paths.js';

/**
 * Only a path on this server, as the server's `SignInNext` rule: a single leading `/`, no `//`,
 * no backslash, no control character, checked as written and after each of up to three
 * rounds of decoding (browsers drop tabs from URLs, so `/%09/host` would become `//host`).
 */
function safeNext(value) {
  if (typeof value !== 'string' || value.length > 2048 || !/^[\x21-\x7e]+$/.test(value)) {
    return '/';
  }
  const local = (text) => text.startsWith('/') && !text.includes('//') && !text.includes('\\')
    && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text);
  let form = value;
  for (let round = 0; round < 4; round += 1) {
    if (!local(form)) {
      return '/';
    }
    let decoded;
    try {
      decoded = decodeURIComponent(form);
    } catch {
      return '/';
    }
    if (decoded === form) {
      return value;
    }
    form = decoded;
  }
  return '/';
}

const form = document.getElementById('signin');
const status = document.getElementById('signin-status');

form?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = form.elements.namedItem('key');
  const button = form.querySelector('button');
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  status.textContent = 'Signing in…';
  try {
    const response = await fetch(paths.signIn, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ key: input.value.trim() }),
      credentials: 'same-origin',
    });
    if (response.ok) {
      const who = await response.json();
      input.value = '';
      status.classList.add('ok');
      status.textContent = `Signed in as ${who.name} (${who.scope}).`;
      // The server put the checked `next` in the form; it is checked again here all the same.
      location.assign(safeNext(form.dataset.next));
      return;
    }
    const answer = await response.json().catch(() => ({}));
    status.textContent = answer?.error?.message ?? `Tuner refused the sign-in (${response.status}).`;
  } catch (error) {
    status.textContent = `Tuner did not answer: ${error.message}`;
  }
  button.disabled = false;
  button.removeAttribute('aria-busy');
  input.focus();
});
