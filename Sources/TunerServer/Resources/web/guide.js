// The guide: every channel by the next 24 hours, with a line at now. Only the rows and hours in
// view are in the DOM (a few hundred elements whatever the number of channels). Arrow keys move
// between programmes, Enter plays: a programme on now plays live, a past one with catch-up plays
// from its start. A programme on now or to come has a Record button (R on the keyboard); the
// ones the DVR will record carry a red dot.
import { el, clock, nowSeconds, say } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';
import { onResync, subscribe } from './events.js';

const grid = document.getElementById('guide');
const status = document.getElementById('guide-status');
const ROW = 56;
const HEAD = 32;
const NAMES = 200;
const HOUR = 240; // pixels per hour
const PAGE = 50;
const HOURS = 24;
const startAt = grid.dataset.at ? Number(grid.dataset.at) : null;
// Two hours back, so past programmes with catch-up are there to pick.
const from = Math.floor((startAt ?? nowSeconds()) / 1800) * 1800 - 7200;
const to = from + (HOURS + 2) * 3600;

let total = null;
const pages = new Map(); // page -> [{item, programmes}]
const loading = new Map();
let generation = 0;
let focus = { row: 0, time: startAt ?? nowSeconds() };
let frame = null;
// Recordings to come or running, by `channel:start`: their programmes carry a dot.
const planned = new Set();

const sizer = el('div', { class: 'guide-sizer' });
const layer = el('div', { class: 'guide-layer' });
sizer.append(layer);
grid.append(sizer);

function x(time) {
  return NAMES + ((time - from) / 3600) * HOUR;
}

function load(page) {
  if (pages.has(page)) return Promise.resolve();
  if (loading.has(page)) return loading.get(page);
  const mine = generation;
  const promise = getJSON(`${paths.guide}?kind=live&brief=1&from=${from}&to=${to}&offset=${page * PAGE}&limit=${PAGE}`)
    .then((answer) => {
      if (mine !== generation) return;
      total = answer.total;
      pages.set(page, answer.channels);
      for (const key of pages.keys()) if (Math.abs(key - page) > 4) pages.delete(key);
      sizer.style.height = `${HEAD + total * ROW}px`;
      sizer.style.width = `${x(to)}px`;
      say(status, total === 0 ? 'No channels yet: add a source.' : `${total} channels`);
      draw();
    })
    .catch((error) => say(status, error.message, true))
    .finally(() => loading.delete(page));
  loading.set(page, promise);
  return promise;
}

function rowAt(index) {
  const page = pages.get(Math.floor(index / PAGE));
  return page ? page[index % PAGE] : undefined;
}

function schedule() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = null;
    draw();
  });
}

/** Draws what is in view: the hour header, the channel names, the programmes, the now line. */
function draw() {
  if (total === null) return;
  const top = grid.scrollTop;
  const left = grid.scrollLeft;
  const width = grid.clientWidth || 1000;
  const height = grid.clientHeight || 600;
  const firstRow = Math.max(0, Math.floor(top / ROW) - 2);
  const lastRow = Math.min(total - 1, Math.ceil((top + height) / ROW) + 2);
  const viewFrom = from + (left / HOUR) * 3600 - 1800;
  const viewTo = from + ((left + width - NAMES) / HOUR) * 3600 + 1800;
  const hadFocus = grid.contains(document.activeElement);
  const nodes = [];

  // The hours, on a strip that stays at the top.
  const head = el('div', { class: 'guide-head', role: 'row' });
  head.style.top = `${top}px`;
  head.style.width = `${x(to)}px`;
  for (let hour = Math.floor(Math.max(from, viewFrom) / 1800) * 1800; hour < Math.min(to, viewTo); hour += 1800) {
    const label = el('div', { class: 'guide-hour', role: 'columnheader', text: clock(hour) });
    label.style.left = `${x(hour)}px`;
    head.append(label);
  }
  nodes.push(head);

  const now = nowSeconds();
  let focused = null;
  for (let index = firstRow; index <= lastRow; index++) {
    const channel = rowAt(index);
    if (!channel) {
      load(Math.floor(index / PAGE));
      continue;
    }
    const y = HEAD + index * ROW;
    const row = el('div', { class: 'guide-row', role: 'row', 'aria-rowindex': index + 1 });
    row.style.top = `${y}px`;
    const name = el('div', { class: 'guide-name', role: 'rowheader' },
      channel.item.logo ? el('img', { src: paths.channelLogo(channel.item.id), alt: '', loading: 'lazy' }) : null,
      el('span', { text: channel.item.name }));
    name.style.left = `${left}px`;
    const cells = [];
    for (const programme of channel.programmes) {
      if (programme.stop <= viewFrom || programme.start >= viewTo) continue;
      const start = Math.max(programme.start, from);
      const cell = el('div', {
        class: 'guide-cell', role: 'gridcell', tabindex: -1, 'data-row': index, 'data-start': programme.start,
        'data-stop': programme.stop,
      }, el('span', { class: 'title', text: programme.title }),
      el('span', { class: 'time', text: clock(programme.start) }));
      if (programme.stop > now) {
        const scheduled = planned.has(`${channel.item.id}:${programme.start}`);
        cell.append(el('button', { type: 'button', class: `record${scheduled ? ' scheduled' : ''}`, tabindex: -1,
          text: scheduled ? '●' : 'Rec', title: scheduled ? 'Will be recorded' : 'Record',
          'aria-label': `${scheduled ? 'Will be recorded' : 'Record'}: ${programme.title}` }));
      }
      if (programme.start <= now && now < programme.stop) cell.classList.add('on-now');
      else if (programme.stop <= now) cell.classList.add('past', ...(channel.item.catchup ? ['catchup'] : []));
      cell.style.left = `${x(start)}px`;
      cell.style.width = `${Math.max(8, x(Math.min(programme.stop, to)) - x(start) - 2)}px`;
      if (index === focus.row && programme.start <= focus.time && focus.time < programme.stop) {
        cell.tabIndex = 0;
        focused = cell;
      }
      cells.push(cell);
    }
    if (channel.programmes.length === 0) {
      const empty = el('div', { class: 'guide-cell empty', role: 'gridcell', tabindex: index === focus.row ? 0 : -1,
        'data-row': index, 'data-start': from, 'data-stop': to, text: 'No guide' });
      empty.style.left = `${Math.max(x(from), left + NAMES)}px`;
      empty.style.width = `${Math.min(width - NAMES, x(to) - x(from))}px`;
      if (index === focus.row) focused = empty;
      cells.push(empty);
    }
    row.append(...cells, name);
    nodes.push(row);
  }
  const line = el('div', { class: 'guide-now', 'aria-hidden': 'true' });
  line.style.left = `${x(now)}px`;
  line.style.top = `${top}px`;
  line.style.height = `${height}px`;
  nodes.push(line);
  layer.replaceChildren(...nodes);
  if (hadFocus) (focused || grid).focus({ preventScroll: true });
}

function focusedCell() {
  return layer.querySelector('.guide-cell[tabindex="0"]');
}

/** Scrolls so the focused programme is in view, draws, and focuses it. */
async function show() {
  const rowTop = HEAD + focus.row * ROW;
  if (rowTop - HEAD < grid.scrollTop) grid.scrollTop = rowTop - HEAD;
  else if (rowTop + ROW > grid.scrollTop + grid.clientHeight) grid.scrollTop = rowTop + ROW - grid.clientHeight;
  const cellX = x(focus.time);
  if (cellX - NAMES < grid.scrollLeft + 0) grid.scrollLeft = Math.max(0, cellX - NAMES - 40);
  else if (cellX > grid.scrollLeft + grid.clientWidth - 40) grid.scrollLeft = cellX - grid.clientWidth / 2;
  await load(Math.floor(focus.row / PAGE));
  draw();
  const cell = focusedCell();
  if (cell) cell.focus({ preventScroll: true });
}

function programmesOf(row) {
  const channel = rowAt(row);
  return channel ? channel.programmes : [];
}

function moveHorizontally(step) {
  const list = programmesOf(focus.row);
  const index = list.findIndex((p) => p.start <= focus.time && focus.time < p.stop);
  let target;
  if (index < 0) target = step > 0 ? list.find((p) => p.start > focus.time) : [...list].reverse().find((p) => p.stop <= focus.time);
  else target = list[index + step];
  if (!target) return;
  focus.time = Math.max(target.start, from) + 1;
  show();
}

/** Records the focused programme (on now or to come). */
async function record() {
  const channel = rowAt(focus.row);
  if (!channel) return;
  const programme = programmesOf(focus.row).find((p) => p.start <= focus.time && focus.time < p.stop);
  if (!programme || programme.stop <= nowSeconds()) {
    say(status, 'Only a programme on now or to come can be recorded.', true);
    return;
  }
  try {
    const body = programme.id ? { programmeID: programme.id, channelID: channel.item.id }
      : { channelID: channel.item.id, start: programme.start, stop: programme.stop, title: programme.title };
    const recording = await command('POST', paths.addRecording, body);
    planned.add(`${recording.channelID}:${recording.start}`);
    say(status, recording.conflict ? `${programme.title} is planned, but will not record: ${recording.conflict}`
      : `${programme.title} will be recorded (see Recordings).`, Boolean(recording.conflict));
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
}

async function loadPlanned() {
  try {
    const list = await getJSON(paths.recordings);
    planned.clear();
    for (const recording of list.recordings) {
      if (recording.state === 'scheduled' || recording.state === 'recording') {
        planned.add(`${recording.channelID}:${recording.start}`);
      }
    }
    draw();
  } catch {
    // The guide works without the dots (a key without the read scope never gets here).
  }
}

function activate() {
  const channel = rowAt(focus.row);
  if (!channel) return;
  const programme = programmesOf(focus.row).find((p) => p.start <= focus.time && focus.time < p.stop);
  const now = nowSeconds();
  if (!programme || (programme.start <= now && now < programme.stop)) {
    location.href = `/channel/${channel.item.id}/play`;
  } else if (programme.stop <= now) {
    if (channel.item.catchup) location.href = `/channel/${channel.item.id}/play?at=${programme.start}`;
    else say(status, `${channel.item.name} keeps no past programmes (no catch-up).`, true);
  } else {
    say(status, `${programme.title} starts at ${clock(programme.start)}.`);
  }
}

grid.addEventListener('scroll', schedule, { passive: true });
window.addEventListener('resize', schedule);
grid.addEventListener('keydown', (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || total === null) return;
  const rows = Math.max(1, Math.floor(grid.clientHeight / ROW) - 2);
  switch (event.key) {
    case 'ArrowDown': focus.row = Math.min(total - 1, focus.row + 1); break;
    case 'ArrowUp': focus.row = Math.max(0, focus.row - 1); break;
    case 'PageDown': focus.row = Math.min(total - 1, focus.row + rows); break;
    case 'PageUp': focus.row = Math.max(0, focus.row - rows); break;
    case 'Home': focus.row = 0; break;
    case 'End': focus.row = total - 1; break;
    case 'ArrowRight': event.preventDefault(); moveHorizontally(1); return;
    case 'ArrowLeft': event.preventDefault(); moveHorizontally(-1); return;
    case 'Enter': event.preventDefault(); activate(); return;
    case 'r': case 'R': event.preventDefault(); record(); return;
    default: return;
  }
  event.preventDefault();
  show();
});
grid.addEventListener('click', (event) => {
  const cell = event.target.closest('.guide-cell');
  if (!cell) return;
  focus = { row: Number(cell.dataset.row), time: Math.max(Number(cell.dataset.start), from) + 1 };
  if (event.target.closest('.record')) record();
  else activate();
});
grid.addEventListener('focus', () => {
  const cell = focusedCell();
  if (cell) cell.focus({ preventScroll: true });
});

function reloadAll() {
  generation++;
  pages.clear();
  load(Math.floor(grid.scrollTop / ROW / PAGE));
}
onResync(reloadAll);
// A guide was imported (by hand or on schedule): the programmes in view are read again.
subscribe('guide', reloadAll);
subscribe('recordings', (event) => {
  if (event.type !== 'recording.changed' || !event.data) return;
  const key = `${event.data.channelID}:${event.data.start}`;
  const wanted = event.data.state === 'scheduled' || event.data.state === 'recording';
  if (wanted !== planned.has(key)) {
    if (wanted) planned.add(key);
    else planned.delete(key);
    draw();
  }
});
onResync(loadPlanned);
loadPlanned();
// The now line moves.
setInterval(draw, 30000);
// Start with now in view.
grid.scrollLeft = Math.max(0, x(focus.time) - NAMES - HOUR / 2);
load(0);
