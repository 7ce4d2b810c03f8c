// Recordings: what is recording now (with a bar that moves), upcoming (with the conflict the server
// computed ahead: which recording loses, and why), done (play here, download, keep, delete) and
// failed (with the reason); the rules, with a form to add one. Live from the `recordings` events.
import { el, clock, bytes, nowSeconds, say } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';
import { subscribe, onResync } from './events.js';

const lists = {
  recording: document.getElementById('recording-now'),
  scheduled: document.getElementById('recording-upcoming'),
  done: document.getElementById('recording-done'),
  failed: document.getElementById('recording-failed'),
};
const status = document.getElementById('recordings-status');
const rulesList = document.getElementById('rules');
const form = document.getElementById('add-rule');
const recordings = new Map(); // id -> recording
let rules = [];

function day(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
}

function when(recording) {
  return `${day(recording.start)} ${clock(recording.start)}–${clock(recording.stop)}`;
}

function name(recording) {
  const episode = recording.season && recording.episode ? ` S${recording.season}E${recording.episode}` : '';
  return `${recording.title}${episode}${recording.subtitle ? ` – ${recording.subtitle}` : ''}`;
}

function button(label, action, title) {
  return el('button', { type: 'button', text: label, title, 'aria-label': title, onclick: action });
}

function render(recording) {
  const row = el('li', { class: `recording state-${recording.state}`, 'data-id': recording.id,
    'data-state': recording.state });
  const head = el('div', { class: 'recording-head' },
    el('span', { class: 'name', text: name(recording) }),
    el('span', { class: 'on', text: recording.channelName }),
    el('span', { class: 'when', text: when(recording) }));
  row.append(head);
  const state = recording.state;
  if (state === 'recording') {
    const span = Math.max(1, recording.recordStop - recording.recordStart);
    const done = Math.min(1, Math.max(0, (nowSeconds() - recording.recordStart) / span));
    row.append(el('progress', { max: 1, value: done.toFixed(4), 'data-start': recording.recordStart,
      'data-stop': recording.recordStop, 'aria-label': `Recorded of ${recording.title}` }),
    el('span', { class: 'figures', text: `${bytes(recording.bytes)} so far` }));
  }
  if (state === 'scheduled' && recording.conflict) {
    row.append(el('p', { class: 'error conflict', text: `Will not record: ${recording.conflict}` }));
  }
  if (state === 'failed' && recording.reason) row.append(el('p', { class: 'error', text: recording.reason }));
  for (const gap of recording.gaps || []) {
    row.append(el('p', { class: 'gap', text: `Gap ${clock(gap.from)}–${clock(gap.to)}: ${gap.reason}` }));
  }
  const actions = el('div', { class: 'actions' });
  // A failed recording may hold what was recorded before it failed (the disk reserve, say).
  if ((state === 'done' || state === 'failed') && recording.files.length) {
    const formats = [...new Set(recording.files.map((file) => file.format.toUpperCase()))].join(', ');
    row.append(el('span', { class: 'figures', text: `${bytes(recording.bytes)}, ${formats}` }));
    recording.files.forEach((file, index) => {
      const url = `${paths.recordingFile(recording.id)}${index ? `?part=${index + 1}` : ''}`;
      const part = recording.files.length > 1 ? ` part ${index + 1}` : '';
      actions.append(
        button(`Play${part}`, () => play(row, url, file), `Play ${recording.title}${part}`),
        el('a', { class: 'button', href: url, download: file.name.split('/').pop(), text: `Download${part}`,
          title: `${bytes(file.bytes)}, ${file.format.toUpperCase()}` }));
    });
    if (state === 'done') {
      actions.append(button(recording.keep ? 'Kept' : 'Keep', (event) => keep(recording, event.currentTarget),
        recording.keep ? 'Let retention delete it' : 'Keep it from retention'));
    }
  }
  const remove = state === 'scheduled' ? 'Cancel' : state === 'recording' ? 'Stop and delete' : 'Delete';
  actions.append(button(remove, (event) => drop(recording, event.currentTarget), `${remove} ${recording.title}`));
  row.append(actions);
  return row;
}

function play(row, url, file) {
  const existing = row.querySelector('video');
  if (existing) {
    existing.remove();
    return;
  }
  const video = el('video', { controls: true, src: url, preload: 'metadata', class: 'recording-video' });
  if (file.format !== 'mp4') say(status, 'This part stayed MPEG-TS (the remux failed): download it for VLC.', true);
  row.append(video);
  video.play().catch(() => {});
}

async function keep(recording, control) {
  try {
    const changed = await command('PATCH', paths.changeRecording(recording.id), { keep: !recording.keep }, { control });
    recordings.set(changed.id, changed);
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
}

async function drop(recording, control) {
  try {
    await command('DELETE', paths.removeRecording(recording.id), undefined, { control });
    if (recording.state === 'scheduled') recordings.set(recording.id, { ...recording, state: 'cancelled' });
    else recordings.delete(recording.id);
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
}

function draw() {
  const groups = { recording: [], scheduled: [], done: [], failed: [] };
  for (const recording of recordings.values()) {
    if (groups[recording.state]) groups[recording.state].push(recording);
  }
  groups.scheduled.sort((a, b) => a.recordStart - b.recordStart);
  groups.done.sort((a, b) => b.start - a.start);
  groups.failed.sort((a, b) => b.start - a.start);
  const empty = { recording: 'Nothing is recording.', scheduled: 'Nothing planned.', done: 'No recordings yet.',
    failed: 'None.' };
  for (const [state, list] of Object.entries(lists)) {
    const items = groups[state].map(render);
    list.replaceChildren(...(items.length ? items : [el('li', { class: 'empty', text: empty[state] })]));
  }
}

function drawRules() {
  const items = rules.map((rule) => {
    const where = rule.channelIDs.length ? `channels ${rule.channelIDs.join(', ')}` : 'any channel';
    let what;
    if (rule.kind === 'series') what = `“${rule.title}”${rule.newOnly ? ', new episodes only' : ''}`;
    else if (rule.kind === 'keyword') what = `titles with “${rule.keyword}”`;
    else if (rule.kind === 'catchup') what = `local catch-up of ${rule.keepDays} days`;
    else what = `${rule.time} for ${rule.durationMinutes} min on days ${rule.weekdays.join(',')}`;
    const keepText = rule.keepCount && rule.kind !== 'catchup' ? `, keep ${rule.keepCount}` : '';
    return el('li', { class: 'rule', 'data-id': rule.id },
      el('span', { text: `${rule.name}: ${what}, ${where}${keepText}` }),
      button('Remove', async (event) => {
        try {
          await command('DELETE', paths.removeRule(rule.id), undefined, { control: event.currentTarget });
          await load();
        } catch (error) {
          say(status, error.message, true);
        }
      }, `Remove the rule ${rule.name}`));
  });
  rulesList.replaceChildren(...(items.length ? items : [el('li', { class: 'empty', text: 'No rules.' })]));
}

async function load() {
  try {
    const [list, ruleList] = await Promise.all([getJSON(paths.recordings), getJSON(paths.rules)]);
    recordings.clear();
    for (const recording of list.recordings) recordings.set(recording.id, recording);
    rules = ruleList.rules;
    draw();
    drawRules();
  } catch (error) {
    say(status, error.message, true);
  }
}

function numbers(text) {
  return text.split(',').map((part) => part.trim()).filter(Boolean).map(Number);
}

function showFields() {
  const kind = form.kind.value;
  form.querySelector('.time-only').hidden = kind !== 'time';
  form.querySelector('.series-only').hidden = kind !== 'series';
  form.querySelector('.catchup-only').hidden = kind !== 'catchup';
  form.querySelector('.recording-only').hidden = kind === 'catchup';
  // A catch-up rule's name is optional: it says what it keeps.
  form.text.required = kind !== 'catchup';
  document.getElementById('rule-text-label').textContent =
    { series: 'Title', keyword: 'Words', time: 'Name', catchup: 'Name (optional)' }[kind];
}

form.kind.addEventListener('change', showFields);
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const kind = form.kind.value;
  const text = form.text.value.trim();
  const body = { kind, paddingAfterSeconds: Number(form.padding.value || 0) * 60 };
  if (kind === 'series') Object.assign(body, { title: text, newOnly: form.newOnly.checked });
  if (kind === 'keyword') body.keyword = text;
  if (kind === 'time') {
    Object.assign(body, { name: text, time: form.time.value, weekdays: numbers(form.days.value),
      durationMinutes: Number(form.minutes.value) });
  }
  if (kind === 'catchup') {
    delete body.paddingAfterSeconds;
    body.keepDays = Number(form.keepDays.value);
    if (text) body.name = text;
  }
  const channels = numbers(form.channels.value);
  if (channels.length) body.channelIDs = channels;
  if (form.keep.value && kind !== 'catchup') body.keepCount = Number(form.keep.value);
  try {
    await command('POST', paths.addRule, body, { control: form.querySelector('button[type=submit]') });
    form.text.value = '';
    say(status, kind === 'catchup' ? 'Rule added: its channels stay tuned and keep their catch-up.' : 'Rule added: its recordings are planned.');
    await load();
  } catch (error) {
    say(status, error.message, true);
  }
});

subscribe('recordings', (event) => {
  if (event.type === 'recording.changed' && event.data) recordings.set(event.data.id, event.data);
  else if (event.type === 'recording.removed' && event.data) recordings.delete(event.data.id);
  else if (event.type === 'rules.changed') {
    load();
    return;
  }
  draw();
});
onResync(load);
// The bars of running recordings move with the clock between events.
setInterval(() => {
  for (const bar of document.querySelectorAll('progress[data-start]')) {
    const start = Number(bar.dataset.start);
    const stop = Number(bar.dataset.stop);
    bar.value = Math.min(1, Math.max(0, (nowSeconds() - start) / Math.max(1, stop - start))).toFixed(4);
  }
}, 1000);
showFields();
load();
