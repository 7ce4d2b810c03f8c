// Uploads: pick files and send them to Tuner by tus (tus.js), with a progress bar, speed, pause,
// resume and cancel. Uploads a reload interrupted are listed from localStorage; picking the same
// file again continues from the offset the server kept.
import { el, bytes, say, arrowNavigation } from './app.js';
import { TusUpload, storageKey, unfinished } from './tus.js';

const form = document.getElementById('upload-form');
const input = document.getElementById('upload-files');
const list = document.getElementById('uploads');
const status = document.getElementById('uploads-status');
const rows = new Map(); // storage key -> {li, upload}

function row(key, name, size) {
  let entry = rows.get(key);
  if (entry) return entry;
  const bar = el('progress', { max: 1, value: 0, 'aria-label': `Upload of ${name}` });
  const li = el('li', { class: 'transfer upload', 'data-key': key, 'data-state': 'waiting' },
    el('div', { class: 'transfer-head' }, el('span', { class: 'name', text: name }),
      el('span', { class: 'state', text: 'waiting' })),
    bar,
    el('div', { class: 'figures' }, el('span', { class: 'done', text: `0 B of ${bytes(size)}` }),
      el('span', { class: 'percent', text: '0 %' }), el('span', { class: 'speed' })),
    el('p', { class: 'note' }),
    el('div', { class: 'actions' },
      el('button', { type: 'button', 'data-action': 'pause', text: 'Pause', disabled: true }),
      el('button', { type: 'button', 'data-action': 'resume', text: 'Resume', disabled: true }),
      el('button', { type: 'button', 'data-action': 'cancel', text: 'Cancel', disabled: true })));
  entry = { li, bar, upload: null, samples: [] };
  for (const button of li.querySelectorAll('button')) {
    button.addEventListener('click', () => act(entry, button.dataset.action));
  }
  rows.set(key, entry);
  list.prepend(li);
  return entry;
}

function setState(entry, state, detail) {
  entry.li.dataset.state = state;
  const words = { uploading: 'uploading', paused: 'paused', complete: 'uploaded', cancelled: 'cancelled',
    error: 'failed', interrupted: 'interrupted' }[state] || state;
  entry.li.querySelector('.state').textContent = words;
  const note = entry.li.querySelector('.note');
  note.classList.toggle('error', state === 'error');
  if (state === 'error') note.textContent = detail || 'The upload failed.';
  else if (state === 'interrupted') note.textContent = 'Interrupted: pick this file again to continue where it stopped.';
  else if (state === 'complete') {
    const resumed = Number(entry.li.dataset.resumedFrom || 0);
    note.textContent = 'In the data folder\'s uploads/.'
      + (resumed ? ` Continued from ${bytes(resumed)}, which the server already had.` : '');
  }
  else if (state === 'cancelled') note.textContent = 'Cancelled: removed from the server.';
  const button = (action) => entry.li.querySelector(`[data-action="${action}"]`);
  const focused = document.activeElement && entry.li.contains(document.activeElement);
  button('pause').disabled = state !== 'uploading';
  button('resume').disabled = !(state === 'paused' || state === 'error') || !entry.upload;
  button('cancel').disabled = !entry.upload || state === 'complete' || state === 'cancelled';
  if (state === 'complete') entry.bar.value = 1;
  if (state !== 'uploading') entry.li.querySelector('.speed').textContent = '';
  // Keep the focus on the row when the button that had it was just disabled.
  if (focused && document.activeElement.disabled) {
    const next = [...entry.li.querySelectorAll('button')].find((b) => !b.disabled);
    if (next) next.focus();
  }
}

function progress(entry, offset, size) {
  entry.bar.value = size ? offset / size : 1;
  entry.li.querySelector('.done').textContent = `${bytes(offset)} of ${bytes(size)}`;
  entry.li.querySelector('.percent').textContent = `${Math.floor((size ? offset / size : 1) * 100)} %`;
  // Speed over the last few seconds of confirmed bytes.
  const now = performance.now();
  entry.samples.push([now, offset]);
  while (entry.samples.length > 2 && now - entry.samples[0][0] > 5000) entry.samples.shift();
  const [since, from] = entry.samples[0];
  if (now - since > 300 && offset > from) {
    entry.li.querySelector('.speed').textContent = `${bytes(((offset - from) * 1000) / (now - since))}/s`;
  }
}

function upload(file) {
  const key = storageKey(file);
  const entry = row(key, file.name, file.size);
  if (entry.upload && entry.upload.running) return;
  const chunkSize = Number(form.dataset.chunk) || 8 << 20;
  entry.samples = [];
  entry.upload = new TusUpload(file, {
    chunkSize,
    onProgress: (offset, size) => progress(entry, offset, size),
    onState: (state, detail) => setState(entry, state, detail),
  });
  entry.upload.start();
  // Say where it continued from once the server answered.
  const shown = setInterval(() => {
    if (!entry.upload || entry.upload.url === null) return;
    clearInterval(shown);
    entry.li.dataset.url = entry.upload.url;
    if (entry.upload.resumedFrom > 0) {
      entry.li.dataset.resumedFrom = String(entry.upload.resumedFrom);
      entry.li.querySelector('.note').textContent =
        `Continued from ${bytes(entry.upload.resumedFrom)}, which the server already had.`;
    }
  }, 100);
}

async function act(entry, action) {
  const upload = entry.upload;
  if (!upload) return;
  if (action === 'pause') upload.pause();
  else if (action === 'resume') upload.start();
  else if (action === 'cancel') {
    try {
      await upload.cancel();
    } catch (error) {
      say(status, error.message, true);
    }
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const files = [...input.files];
  if (!files.length) {
    say(status, 'Pick one or more files first.', true);
    input.focus();
    return;
  }
  say(status, '');
  for (const file of files) upload(file);
  input.value = '';
});

// What a reload (or a closed tab) left unfinished, until the file is picked again.
for (const entry of unfinished()) {
  const shown = row(entry.key, entry.name || entry.key, entry.size || 0);
  setState(shown, 'interrupted');
  // How much of it the server holds.
  fetch(entry.url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' }, cache: 'no-store' }).then((response) => {
    if (response.ok) progress(shown, Number(response.headers.get('Upload-Offset')) || 0, entry.size || 0);
  }).catch(() => {});
}
say(status, rows.size ? '' : 'Nothing uploaded from this browser yet.');
arrowNavigation(list, 'button:not(:disabled)', { vertical: false });
