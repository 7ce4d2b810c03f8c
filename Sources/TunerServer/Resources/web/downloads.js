// Downloads: the transfer queue with progress bars, speed and time left, live from the
// `transfers` events; pause, resume, cancel, retry, remove, move up/down or drag; add a URL.
import { el, bytes, duration, say, arrowNavigation } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';
import { subscribe, onResync } from './events.js';

const list = document.getElementById('transfers');
const status = document.getElementById('transfers-status');
const form = document.getElementById('add-download');
const entries = new Map(); // id -> {task fields…, progress}

// A reload's list can be older than the events that arrive while it is fetched (a download that
// ends meanwhile): put in place, it would hide them for good. So a list is put in place only if no
// task changed during its fetch; otherwise it is fetched again (a few times at most; the events
// keep the page current meanwhile). A newer reload supersedes an older one.
let reloads = 0;
let changedDuringReload = false;

async function reload() {
  const generation = ++reloads;
  try {
    for (let attempt = 1; ; attempt++) {
      changedDuringReload = false;
      const answer = await getJSON(paths.transfers);
      if (generation !== reloads) return;
      if (changedDuringReload && attempt < 5) continue;
      entries.clear();
      for (const entry of answer.transfers) entries.set(entry.id, entry);
      draw();
      return;
    }
  } catch (error) {
    say(status, error.message, true);
  }
}

function ordered() {
  return [...entries.values()].filter((entry) => entry.state !== 'removed')
    .sort((a, b) => (b.priority - a.priority) || (a.position - b.position) || (a.id - b.id));
}

function draw() {
  const focusedAction = document.activeElement && document.activeElement.closest('#transfers [data-id]')
    ? [document.activeElement.closest('[data-id]').dataset.id, document.activeElement.dataset.action] : null;
  const items = ordered().map(render);
  list.replaceChildren(...items);
  say(status, items.length ? '' : 'Nothing queued. Add a URL above.');
  if (focusedAction) {
    const again = list.querySelector(`[data-id="${focusedAction[0]}"] [data-action="${focusedAction[1]}"]`);
    if (again) again.focus();
  }
}

function render(entry, index, all) {
  const done = entry.progress ? entry.progress.bytes : entry.committedBytes;
  const total = (entry.progress && entry.progress.total) || entry.totalBytes;
  const fraction = entry.state === 'complete' ? 1 : total ? Math.min(1, done / total) : 0;
  const speed = entry.state === 'active' && entry.progress ? `${bytes(entry.progress.bytesPerSecond)}/s` : '';
  const eta = entry.state === 'active' && entry.progress && entry.progress.etaSeconds !== null
    && entry.progress.etaSeconds !== undefined ? `${duration(entry.progress.etaSeconds)} left` : '';
  const button = (action, label, enabled = true) => el('button', {
    type: 'button', 'data-action': action, text: label, disabled: !enabled,
    onclick: (event) => act(entry, action, event.currentTarget, all),
  });
  const state = entry.state;
  const row = el('li', { class: `transfer state-${state}`, 'data-id': entry.id, 'data-state': state },
    el('div', { class: 'transfer-head' },
      el('span', { class: 'name', text: entry.destinationName || entry.sourceURL }),
      el('span', { class: 'state', text: state })),
    el('progress', { max: 1, value: fraction.toFixed(4), 'aria-label': `Progress of ${entry.destinationName}` }),
    el('div', { class: 'figures' },
      el('span', { class: 'done', text: `${bytes(done)} of ${total ? bytes(total) : '?'}` }),
      el('span', { class: 'percent', text: `${Math.floor(fraction * 100)} %` }),
      el('span', { class: 'speed', text: speed }),
      el('span', { class: 'eta', text: eta })),
    entry.errorReason ? el('p', { class: 'error', text: entry.errorReason }) : null,
    el('div', { class: 'actions' },
      button('pause', 'Pause', state === 'waiting' || state === 'active'),
      button('resume', 'Resume', state === 'paused'),
      button('retry', 'Retry', state === 'error'),
      button('cancel', 'Cancel', state !== 'complete' && state !== 'error'),
      button('up', 'Move up', index > 0 && state !== 'complete'),
      button('down', 'Move down', index < all.length - 1 && state !== 'complete'),
      button('remove', 'Remove')));
  // Drag a row onto another to put it there (Move up/down do the same from the keyboard).
  if (state !== 'complete') {
    row.draggable = true;
    row.addEventListener('dragstart', (event) => {
      event.dataTransfer.setData('text/plain', String(entry.id));
      event.dataTransfer.effectAllowed = 'move';
    });
  }
  row.addEventListener('dragover', (event) => event.preventDefault());
  row.addEventListener('drop', (event) => {
    event.preventDefault();
    const dragged = entries.get(Number(event.dataTransfer.getData('text/plain')));
    if (dragged && dragged.id !== entry.id) moveTo(dragged, entry, row);
  });
  return row;
}

/** Puts `entry` at `target`'s place in the queue. */
async function moveTo(entry, target, control) {
  try {
    const changed = await command('PATCH', paths.changeTransfer(entry.id),
      { action: 'position', position: Math.max(0, target.position) }, { control });
    if (changed) entries.set(changed.id, { ...entries.get(changed.id), ...changed });
    await reload();
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
}

async function act(entry, action, control, all) {
  try {
    if (action === 'remove') {
      await command('DELETE', paths.removeTransfer(entry.id), undefined, { control });
      entries.delete(entry.id);
    } else if (action === 'up' || action === 'down') {
      const index = all.indexOf(entry);
      const neighbour = all[index + (action === 'up' ? -1 : 1)];
      const changed = await command('PATCH', paths.changeTransfer(entry.id),
        { action: 'position', position: Math.max(0, neighbour.position) }, { control });
      if (changed) entries.set(changed.id, { ...entries.get(changed.id), ...changed });
      await reload();
    } else {
      const changed = await command('PATCH', paths.changeTransfer(entry.id), { action }, { control });
      if (changed) entries.set(changed.id, { ...entries.get(changed.id), ...changed });
    }
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('download-url');
  const submit = form.querySelector('button[type=submit]');
  try {
    const answer = await command('POST', paths.addTransfers, { url: input.value.trim() }, { control: submit });
    for (const entry of answer.transfers) entries.set(entry.id, { ...entries.get(entry.id), ...entry });
    input.value = '';
    say(status, 'Added.');
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
});

// The buttons' `data-all` names the action on every transfer.
const allTransfers = {
  'pause-all': paths.pauseAllTransfers,
  'resume-all': paths.resumeAllTransfers,
  purge: paths.purgeTransfers,
};
for (const control of document.querySelectorAll('[data-all]')) {
  control.addEventListener('click', async () => {
    try {
      await command('POST', allTransfers[control.dataset.all], undefined, { control });
      await reload();
    } catch (error) {
      say(status, error.message, true);
    }
  });
}

subscribe('transfers', (event) => {
  const data = event.data;
  if (event.type !== 'transfer.progress') changedDuringReload = true;
  if (event.type === 'transfer.changed') {
    const previous = entries.get(data.id) || {};
    entries.set(data.id, { ...previous, ...data, progress: data.state === 'active' ? previous.progress : undefined });
  } else if (event.type === 'transfer.progress') {
    const previous = entries.get(data.id);
    if (!previous) return reload();
    previous.progress = data;
  } else if (event.type === 'transfer.deleted') {
    entries.delete(data.id);
  }
  draw();
});
onResync(reload);
arrowNavigation(list, 'button', { vertical: false });
reload();
