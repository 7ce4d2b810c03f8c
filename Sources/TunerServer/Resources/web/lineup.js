// The lineup editor of one output profile: every live channel in a list that keeps only the rows
// in view (vlist.js), the lineup's first by number; filters; a selection (click, Space, Shift for
// a range, "Select all" for everything the filter lets through) and what to do with it (add,
// remove, renumber from N, disable, enable); drag or Alt+↑/↓ to move a numbered channel; and a
// panel for one channel (name, group, logo by address or upload, number, alternatives, guide).
// Every change is one command (command.js: an Idempotency-Key, resent when lost); the `outputs`
// events redraw the list when this page or another one changed the lineup.
import { el, debounce, say } from './app.js';
import { command, getJSON, newKey, CommandError } from './command.js';
import { paths } from './api-paths.js';
import { onResync, subscribe } from './events.js';
import { VirtualList } from './vlist.js';

const container = document.getElementById('lineup-list');
const profile = container.dataset.profile;
const status = document.getElementById('lineup-status');
const selectedText = document.getElementById('lineup-selected');
const fields = {
  show: document.getElementById('lineup-show'),
  source: document.getElementById('lineup-source'),
  group: document.getElementById('lineup-group'),
  search: document.getElementById('lineup-search'),
  guide: document.getElementById('lineup-guide'),
};
const sourceNames = new Map([...fields.source.options].filter((o) => o.value).map((o) => [Number(o.value), o.text]));

/** The identities chosen, in the order they were chosen. */
const selected = new Set();
/** Where a Shift range starts: the last row clicked or toggled. */
let anchor = null;
/** The identities the current filter lets through, in list order, once asked for. */
let everyIdentity = null;

function filters() {
  const params = new URLSearchParams();
  if (fields.show.value !== 'all') params.set('show', fields.show.value);
  if (fields.source.value) params.set('source', fields.source.value);
  if (fields.group.value.trim()) params.set('group', fields.group.value.trim());
  if (fields.search.value.trim()) params.set('search', fields.search.value.trim());
  if (fields.guide.value !== 'any') params.set('guide', fields.guide.value);
  return params;
}

async function fetchPage(offset, limit) {
  const params = filters();
  params.set('offset', offset);
  params.set('limit', limit);
  const page = await getJSON(`${paths.outputLineup(profile)}?${params}`);
  lineupCount = page.lineupCount;
  return { total: page.total, items: page.rows };
}

let lineupCount = 0;

function shownName(row) {
  return row.rename || row.name;
}

function renderRow(row, index) {
  const chosen = selected.has(row.identity);
  const meta = [row.rename ? `playlist: ${row.name}` : null, row.groupOverride || row.group,
    sourceNames.get(row.sourceID)].filter(Boolean).join(' · ');
  const node = el('div', {
    role: 'option', class: `channel lineup-row${row.inLineup ? ' in-lineup' : ''}${row.disabled ? ' disabled' : ''}`,
    'aria-selected': chosen ? 'true' : 'false', 'data-identity': row.identity, 'data-item': row.itemID,
  },
  el('span', { class: 'pick', 'aria-hidden': 'true', text: chosen ? '☑' : '☐' }),
  el('span', { class: 'number', text: row.number ?? '–' }),
  row.logoURL ? el('img', { class: 'logo', src: row.logoURL, alt: '', loading: 'lazy' })
    : el('span', { class: 'logo placeholder', 'aria-hidden': 'true', text: shownName(row).slice(0, 1) }),
  el('div', { class: 'info' },
    el('div', { class: 'name', text: shownName(row) }),
    el('div', { class: 'meta', text: meta })),
  el('span', { class: `badge ${row.hasGuide ? 'has-guide' : 'no-guide'}`, text: row.hasGuide ? 'Guide' : 'No guide' }),
  el('span', { class: 'badge state', text: row.disabled ? 'Disabled' : row.inLineup ? 'In lineup' : '' }));
  if (row.inLineup) {
    node.draggable = true;
    node.addEventListener('dragstart', (event) => {
      event.dataTransfer.setData('text/plain', row.identity);
      event.dataTransfer.effectAllowed = 'move';
    });
    node.addEventListener('dragover', (event) => event.preventDefault());
    node.addEventListener('drop', (event) => {
      event.preventDefault();
      const identity = event.dataTransfer.getData('text/plain');
      if (identity && identity !== row.identity) place(identity, row.number, null);
    });
  }
  return node;
}

function showSelection() {
  const count = selected.size;
  say(selectedText, count ? `${count} selected` : 'None selected');
}

/** The identities of the whole filtered list, in order (one request, kept until the list changes). */
async function allIdentities() {
  if (!everyIdentity) {
    everyIdentity = (await getJSON(`${paths.outputLineupIdentities(profile)}?${filters()}`)).identities;
  }
  return everyIdentity;
}

function toggle(index) {
  const row = list.itemAt(index);
  if (!row) return;
  if (selected.has(row.identity)) selected.delete(row.identity);
  else selected.add(row.identity);
  anchor = index;
  showSelection();
  list.render(true);
}

/** Selects the rows from the anchor to `index`, loaded or not. */
async function selectRange(index) {
  if (anchor === null) {
    toggle(index);
    return;
  }
  const [from, to] = anchor <= index ? [anchor, index] : [index, anchor];
  let identities = [];
  for (let i = from; i <= to; i++) {
    const row = list.itemAt(i);
    if (!row) {
      identities = (await allIdentities()).slice(from, to + 1);
      break;
    }
    identities.push(row.identity);
  }
  for (const identity of identities) selected.add(identity);
  showSelection();
  list.render(true);
}

async function selectAll() {
  try {
    for (const identity of await allIdentities()) selected.add(identity);
    showSelection();
    list.render(true);
  } catch (error) {
    say(status, error.message, true);
  }
}

/** Sends one change; says what it did and redraws the list. */
async function change(body, control, done) {
  try {
    const answer = await command('POST', paths.changeOutputLineup(profile), body, { control });
    lineupCount = answer.lineupCount;
    say(status, `${done}; the lineup has ${answer.lineupCount} channels`);
    everyIdentity = null;
    await list.reload();
    return answer;
  } catch (error) {
    say(status, error.message, true);
    return null;
  }
}

function chosen() {
  if (!selected.size) {
    say(status, 'Select channels first: click them, or use Select all.', true);
    return null;
  }
  return [...selected];
}

async function place(identity, number, control) {
  if (!number) return;
  await change({ place: { identity, number } }, control, `moved to ${number}`);
}

/** Alt+↑/↓: the focused numbered channel takes its neighbour's number. */
async function moveBy(index, step) {
  const row = list.itemAt(index);
  const neighbour = list.itemAt(index + step);
  if (!row || !row.inLineup || !neighbour || !neighbour.inLineup) return;
  if (step > 0) {
    // Down past the next channel: it takes this one's number, and this one moves up one.
    await change({ place: { identity: neighbour.identity, number: row.number } }, null,
      `${shownName(row)} moved to ${row.number + 1}`);
  } else {
    await place(row.identity, neighbour.number, null);
  }
  await list.focus(index + step);
}

document.getElementById('lineup-select-all').addEventListener('click', () => selectAll());
document.getElementById('lineup-clear').addEventListener('click', () => {
  selected.clear();
  anchor = null;
  showSelection();
  list.render(true);
});
document.getElementById('lineup-add').addEventListener('click', async (event) => {
  const add = chosen();
  if (add) await change({ add }, event.currentTarget, `${add.length} added`);
});
document.getElementById('lineup-remove').addEventListener('click', async (event) => {
  const remove = chosen();
  if (remove) await change({ remove }, event.currentTarget, `${remove.length} removed`);
});
document.getElementById('lineup-renumber').addEventListener('click', async (event) => {
  if (!chosen()) return;
  const from = Number(document.getElementById('lineup-from').value);
  if (!Number.isInteger(from) || from < 1 || from > 999999) {
    say(status, 'Renumber from a whole number from 1 to 999999.', true);
    return;
  }
  try {
    // The lineup's own order (by number) decides who gets which number.
    const order = (await getJSON(`${paths.outputLineupIdentities(profile)}?show=lineup`)).identities;
    const identities = order.filter((identity) => selected.has(identity));
    if (!identities.length) {
      say(status, 'None of the selected channels is in the lineup: add them first.', true);
      return;
    }
    await change({ renumber: { identities, from } }, event.currentTarget,
      `${identities.length} renumbered from ${from}`);
  } catch (error) {
    say(status, error.message, true);
  }
});
for (const [id, disabled] of [['lineup-disable', true], ['lineup-enable', false]]) {
  document.getElementById(id).addEventListener('click', async (event) => {
    const identities = chosen();
    if (!identities) return;
    await change({ edits: identities.map((identity) => ({ identity, disabled })) }, event.currentTarget,
      `${identities.length} ${disabled ? 'disabled' : 'enabled'}`);
  });
}
document.getElementById('lineup-guides').addEventListener('click', async (event) => {
  const identities = chosen();
  if (!identities) return;
  try {
    const answer = await command('POST', paths.acceptLineupGuides(profile), { identities },
      { control: event.currentTarget, timeout: 120000 });
    say(status, `${answer.accepted} given their best guide; ${answer.alreadyGuided} had one; `
      + `${answer.chosenByHand} chosen by hand, kept; ${answer.withoutSuggestion} without a suggestion`);
    everyIdentity = null;
    await list.reload();
  } catch (error) {
    say(status, error.message, true);
  }
});
document.getElementById('lineup-picked').addEventListener('change', async (event) => {
  const box = event.currentTarget;
  try {
    await command('PATCH', paths.changeOutput(profile), { pickedOnly: box.checked }, { control: box });
    say(status, box.checked ? 'The lineup is only the channels added here.'
      : 'The lineup is every channel the profile\'s rules select, and those added here.');
    everyIdentity = null;
    await list.reload();
  } catch (error) {
    box.checked = !box.checked;
    say(status, error.message, true);
  }
});

// The channel panel.
const panel = document.getElementById('lineup-channel');
const form = document.getElementById('lineup-edit');
const edit = {
  name: document.getElementById('edit-name'),
  group: document.getElementById('edit-group'),
  logo: document.getElementById('edit-logo'),
  file: document.getElementById('edit-logo-file'),
  number: document.getElementById('edit-number'),
};
let editing = null; // the row the panel shows
let uploadedLogo = null; // `upload:<name>` of a file uploaded for it, not saved yet

async function open(row) {
  editing = row;
  uploadedLogo = null;
  panel.hidden = false;
  document.getElementById('lineup-channel-heading').textContent = shownName(row);
  edit.name.value = row.rename || '';
  edit.name.placeholder = row.name;
  edit.group.value = row.groupOverride || '';
  edit.group.placeholder = row.group || '';
  edit.logo.value = row.logoOverride && !row.logoOverride.startsWith('upload:') ? row.logoOverride : '';
  edit.file.value = '';
  edit.number.value = row.number ?? '';
  edit.number.disabled = !row.inLineup;
  edit.name.focus();
  await Promise.all([loadAlternatives(row), loadGuide(row)]);
}

function close() {
  panel.hidden = true;
  editing = null;
  list.focus(list.focusIndex);
}

edit.file.addEventListener('change', async () => {
  const file = edit.file.files[0];
  if (!file) return;
  try {
    // Raw bytes, not JSON: command.js sends JSON, so the same key rule is kept here by hand.
    const response = await fetch(paths.uploadLogo, {
      method: 'POST', body: file, credentials: 'same-origin',
      headers: { 'Content-Type': file.type || 'application/octet-stream', 'Idempotency-Key': newKey() },
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new CommandError(data?.error?.message || `the server answered ${response.status}`);
    uploadedLogo = data.logo;
    say(status, `${file.name} uploaded: save to use it`);
  } catch (error) {
    edit.file.value = '';
    say(status, error.message, true);
  }
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!editing) return;
  const row = editing;
  const body = {
    edits: [{
      identity: row.identity, name: edit.name.value.trim(), group: edit.group.value.trim(),
      logo: uploadedLogo || edit.logo.value.trim() || (row.logoOverride?.startsWith('upload:') ? row.logoOverride : ''),
    }],
  };
  const number = Number(edit.number.value);
  if (row.inLineup && Number.isInteger(number) && number > 0 && number !== row.number) {
    body.place = { identity: row.identity, number };
  }
  const answer = await change(body, document.getElementById('edit-save'), `${edit.name.value.trim() || row.name} saved`);
  if (answer) close();
});
document.getElementById('edit-close').addEventListener('click', close);
// Escape closes the panel wherever the focus is (a button being sent is disabled, and loses it).
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !panel.hidden) close();
});

// Alternatives: the order failover tries them in, by drag or by the Up buttons.
const alternativesList = document.getElementById('edit-alternatives');
let alternatives = [];

async function loadAlternatives(row) {
  try {
    alternatives = (await getJSON(paths.alternatives(row.itemID))).alternatives;
  } catch {
    alternatives = [];
  }
  drawAlternatives();
}

function drawAlternatives() {
  alternativesList.replaceChildren(...alternatives.map((channel, index) => {
    const item = el('li', { draggable: 'true', 'data-id': channel.id },
      el('span', { text: `${channel.name} ` }),
      el('span', { class: 'muted', text: sourceNames.get(channel.sourceID) || '' }), ' ',
      el('button', {
        type: 'button', 'aria-label': `Move ${channel.name} up`, text: '↑', disabled: index === 0,
        onclick: () => moveAlternative(index, index - 1),
      }));
    item.addEventListener('dragstart', (event) => event.dataTransfer.setData('text/plain', String(index)));
    item.addEventListener('dragover', (event) => event.preventDefault());
    item.addEventListener('drop', (event) => {
      event.preventDefault();
      moveAlternative(Number(event.dataTransfer.getData('text/plain')), index);
    });
    return item;
  }));
  if (!alternatives.length) alternativesList.replaceChildren(el('li', { class: 'muted', text: 'None found.' }));
}

function moveAlternative(from, to) {
  if (!Number.isInteger(from) || to < 0 || to >= alternatives.length || from === to) return;
  const [moved] = alternatives.splice(from, 1);
  alternatives.splice(to, 0, moved);
  drawAlternatives();
  alternativesList.querySelectorAll('button')[to]?.focus();
}

async function saveAlternatives(ids, control) {
  if (!editing) return;
  try {
    const answer = await command('PUT', paths.setAlternatives(editing.itemID), { ids }, { control });
    alternatives = answer.alternatives;
    drawAlternatives();
    say(status, ids.length ? 'The alternatives\' order is saved' : 'The alternatives are automatic again');
  } catch (error) {
    say(status, error.message, true);
  }
  control?.focus();
}
document.getElementById('edit-alternatives-save').addEventListener('click',
  (event) => saveAlternatives(alternatives.map((channel) => channel.id), event.currentTarget));
document.getElementById('edit-alternatives-auto').addEventListener('click',
  (event) => saveAlternatives([], event.currentTarget));

// The guide: the channel's match, and the best guide channels by name with their scores.
const guideText = document.getElementById('edit-guide');
const suggestionsList = document.getElementById('edit-suggestions');

async function loadGuide(row) {
  suggestionsList.replaceChildren();
  try {
    const answer = await getJSON(paths.guideSuggestions(row.itemID));
    guideText.textContent = row.hasGuide ? 'This channel has a guide.' : answer.automatic
      ? `Matched automatically to ${answer.automatic.epgID} (score ${answer.automatic.score}).`
      : 'No guide yet: pick one of these, or say it has none.';
    const items = answer.suggestions.slice(0, 3).map((suggestion) => el('li', {},
      el('span', { text: `${suggestion.name} (${suggestion.epgID}) — score ${suggestion.score} ` }),
      el('button', {
        type: 'button', text: 'Use', 'aria-label': `Use ${suggestion.name} as the guide`,
        onclick: (event) => map(row, { epgID: suggestion.epgID }, event.currentTarget),
      })));
    items.push(el('li', {}, el('button', {
      type: 'button', text: 'No guide', onclick: (event) => map(row, { none: true }, event.currentTarget),
    })));
    suggestionsList.replaceChildren(...items);
  } catch (error) {
    guideText.textContent = error.message;
  }
}

async function map(row, body, control) {
  try {
    await command('PUT', paths.setGuideMapping(row.itemID), body, { control });
    say(status, body.none ? `${shownName(row)} has no guide now` : `${shownName(row)} uses ${body.epgID}`);
    await list.reload();
  } catch (error) {
    say(status, error.message, true);
  }
}

function onKey(event, row, index) {
  if (!row) return false;
  if (event.key === ' ') {
    toggle(index);
    return true;
  }
  if (event.shiftKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
    const next = index + (event.key === 'ArrowDown' ? 1 : -1);
    if (!selected.has(row.identity)) toggle(index);
    const target = list.itemAt(next);
    if (target && !selected.has(target.identity)) toggle(next);
    list.focus(next);
    return true;
  }
  if (event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
    moveBy(index, event.key === 'ArrowUp' ? -1 : 1);
    return true;
  }
  if ((event.ctrlKey || event.metaKey) && (event.key === 'a' || event.key === 'A')) {
    selectAll();
    return true;
  }
  if (event.key === 'Enter') {
    open(row);
    return true;
  }
  return false;
}

const list = new VirtualList(container, {
  rowHeight: 60, pageSize: 100, fetchPage, renderRow, onActivate: () => {}, onKey,
  onTotal: (total) => say(status, `${total} channels shown; ${lineupCount} in the lineup`),
});

container.addEventListener('click', (event) => {
  const node = event.target.closest('[data-index]');
  if (!node) return;
  const index = Number(node.dataset.index);
  if (event.shiftKey) selectRange(index);
  else toggle(index);
});
container.addEventListener('dblclick', (event) => {
  const node = event.target.closest('[data-index]');
  const row = node && list.itemAt(Number(node.dataset.index));
  if (row) open(row);
});

const refilter = () => {
  everyIdentity = null;
  anchor = null;
  list.reset().catch((error) => say(status, error.message, true));
};
for (const field of [fields.show, fields.source, fields.guide]) field.addEventListener('change', refilter);
for (const field of [fields.group, fields.search]) field.addEventListener('input', debounce(refilter, 120));
document.getElementById('lineup-filter').addEventListener('submit', (event) => {
  event.preventDefault();
  list.focus(0);
});

onResync(() => list.reload());
// A change made here, in another page or on another node.
subscribe('outputs', (event) => {
  if (event.data?.profileID !== profile) return;
  everyIdentity = null;
  lineupCount = event.data.lineupCount;
  list.reload();
});
showSelection();
list.reset().catch((error) => say(status, error.message, true));
