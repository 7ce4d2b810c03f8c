// Sources: the playlists, Xtream accounts and guides Tuner imports; add one (it is imported at
// once, with a progress bar fed by the `imports` events), refresh, remove; errors in words.
import { el, bytes, say } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';
import { subscribe, onResync } from './events.js';

const list = document.getElementById('sources');
const status = document.getElementById('sources-status');
const form = document.getElementById('add-source');
const kind = document.getElementById('source-kind');
const progress = new Map(); // source id -> {phase, bytes, totalBytes, entries, error}
let sources = [];

async function reload() {
  try {
    sources = (await getJSON(paths.sources)).sources;
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
}

function draw() {
  list.replaceChildren(...sources.map(render));
  if (!sources.length) say(status, 'No sources yet: add a playlist or an Xtream account below.');
}

function render(source) {
  const state = progress.get(source.id);
  const importing = state && !state.done;
  const bar = el('progress', { class: 'import', max: 1, 'aria-label': `Import of ${source.name}` });
  if (state && state.totalBytes) bar.value = Math.min(1, state.bytes / state.totalBytes);
  if (state && state.done) bar.value = 1;
  if (state && !state.totalBytes && !state.done) bar.removeAttribute('value');
  const failed = !!(state && state.error);
  const words = failed ? '' : importing
    ? `${state.phase === 'downloading' ? 'Downloading' : 'Importing'}: ${bytes(state.bytes)}`
      + `${state.totalBytes ? ` of ${bytes(state.totalBytes)}` : ''}, ${state.entries} entries`
    : state && state.done ? `Imported ${state.entries ?? ''} entries` : '';
  const error = (state && state.error) || source.lastError;
  return el('li', { class: 'source card', 'data-id': source.id, 'data-status': source.status },
    el('div', { class: 'source-head' },
      el('strong', { class: 'name', text: source.name }),
      el('span', { class: 'kind', text: source.kind }),
      el('span', { class: 'status-word', text: source.status })),
    el('div', { class: 'location', text: source.location }),
    source.lastRefresh ? el('div', { class: 'muted', text: `Last imported ${new Date(source.lastRefresh).toLocaleString()}` }) : null,
    state && !failed ? bar : null,
    words ? el('div', { class: 'import-words', text: words }) : null,
    error ? el('p', { class: 'error', text: `Import failed: ${error}` }) : null,
    el('div', { class: 'actions' },
      el('button', { type: 'button', text: 'Refresh', onclick: (event) => refresh(source.id, event.currentTarget) }),
      el('button', { type: 'button', text: 'Remove', onclick: (event) => remove(source, event.currentTarget) })));
}

async function refresh(id, control) {
  progress.set(id, { phase: 'downloading', bytes: 0, totalBytes: null, entries: 0 });
  draw();
  try {
    // An import of a large playlist takes a while: wait for it rather than resend it.
    const answer = await command('POST', paths.refreshSource(id), undefined,
      { control, timeout: 600000, attempts: 1 });
    const state = progress.get(id) || {};
    const counts = answer && answer.counts;
    const entries = counts ? Object.values(counts).filter((n) => typeof n === 'number').reduce((a, b) => a + b, 0)
      : state.entries;
    progress.set(id, { ...state, entries, done: true, error: null });
    say(status, '');
  } catch (error) {
    progress.set(id, { ...(progress.get(id) || {}), done: true, error: error.message });
    say(status, '');
  }
  await reload();
}

async function remove(source, control) {
  try {
    await command('DELETE', paths.removeSource(source.id), undefined, { control });
    progress.delete(source.id);
    await reload();
  } catch (error) {
    say(status, error.message, true);
  }
}

function showKindFields() {
  form.classList.toggle('xtream', kind.value === 'xtream');
}
kind.addEventListener('change', showKindFields);
showKindFields();

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const data = Object.fromEntries(new FormData(form));
  const body = { location: data.location.trim(), kind: data.kind };
  if (data.name) body.name = data.name;
  if (data.kind === 'xtream') {
    body.username = data.username;
    body.password = data.password;
  }
  const submit = form.querySelector('button[type=submit]');
  try {
    const source = await command('POST', paths.addSource, body, { control: submit });
    // The password stays in Tuner: clear it from the page at once.
    form.reset();
    showKindFields();
    say(status, `Added ${source.name}; importing…`);
    sources.push(source);
    await refresh(source.id, null);
  } catch (error) {
    say(status, error.message, true);
  }
});

subscribe('imports', (event) => {
  const data = event.data;
  if (event.type === 'source.changed') {
    // A refresh ended (also a scheduled one): status, last refresh and error are new.
    reload();
    return;
  }
  if (event.type === 'import.progress') {
    progress.set(data.sourceID, { ...data, done: false });
  } else if (event.type === 'import.finished') {
    const state = progress.get(data.sourceID) || {};
    progress.set(data.sourceID, { ...state, done: true, error: null });
    reload();
    return;
  } else if (event.type === 'import.failed') {
    progress.set(data.sourceID, { ...(progress.get(data.sourceID) || {}), done: true, error: data.error });
  }
  draw();
});
onResync(reload);
reload();
