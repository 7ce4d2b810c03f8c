// The sign-in page: trades the access token or an API key for a session cookie (HttpOnly, so this
// script never sees it), then returns to the page that sent the browser here. It does not load
// app.js: without a session the live connection would only be refused.

/** Only a path on this server: never `//host` or a backslash trick, so `next` cannot leave Tuner. */
function safeNext(value) {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) {
    return '/';
  }
  return value;
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
    const response = await fetch('/api/v1/session', {
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
      location.assign(safeNext(new URLSearchParams(location.search).get('next')));
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
