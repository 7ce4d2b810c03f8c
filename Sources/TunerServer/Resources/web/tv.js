// Live TV: the channel list (only the rows in view are in the DOM), now and next with a progress
// bar, search as you type, and favourites (toggle; reorder by drag or Alt+↑/↓).
import { el, debounce, clock, nowSeconds, say } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';
import { onResync, subscribe } from './events.js';
import { VirtualList } from './vlist.js';

const container = document.getElementById('channel-list');
const status = document.getElementById('list-status');
const search = document.getElementById('search');
const group = container.dataset.group || null;
const favourites = container.dataset.favourites === '1';

function filters() {
  const params = new URLSearchParams({ kind: 'live' });
  if (group) params.set('group', group);
  if (favourites) params.set('favourites', '1');
  const text = search.value.trim();
  if (text) params.set('search', text);
  return params;
}

async function fetchPage(offset, limit) {
  const params = filters();
  params.set('offset', offset);
  params.set('limit', limit);
  params.set('brief', '1');
  const page = await getJSON(`${paths.guideNow}?${params}`);
  return {
    total: page.total,
    items: page.channels.map((entry) => ({ ...entry.item, now: entry.now, next: entry.next })),
  };
}

function renderRow(item, index) {
  const now = item.now;
  let progress = null;
  if (now) {
    const done = (nowSeconds() - now.start) / Math.max(1, now.stop - now.start);
    progress = el('progress', { max: 1, value: Math.min(1, Math.max(0, done)).toFixed(3), 'aria-label': 'Elapsed' });
  }
  const star = el('button', {
    type: 'button', class: 'fav', 'aria-pressed': item.isFavourite ? 'true' : 'false', tabindex: -1,
    'aria-label': item.isFavourite ? 'Remove from favourites' : 'Add to favourites', text: item.isFavourite ? '★' : '☆',
    onclick: (event) => toggleFavourite(item, event.currentTarget),
  });
  const row = el('div', { role: 'option', class: 'channel', 'data-id': item.id, 'aria-selected': 'false' },
    item.logo ? el('img', { class: 'logo', src: paths.channelLogo(item.id), alt: '', loading: 'lazy' })
      : el('span', { class: 'logo placeholder', 'aria-hidden': 'true', text: item.name.slice(0, 1) }),
    el('span', { class: 'number', text: item.number || '' }),
    el('div', { class: 'info' },
      el('div', { class: 'name', text: item.name }),
      now ? el('div', { class: 'now' }, el('span', { class: 'title', text: now.title }), ' ',
        el('span', { class: 'time', text: `${clock(now.start)}–${clock(now.stop)}` }), progress)
        : el('div', { class: 'now muted', text: 'No guide' }),
      item.next ? el('div', { class: 'next', text: `Next ${clock(item.next.start)} ${item.next.title}` }) : null),
    star);
  if (favourites) {
    row.draggable = true;
    row.addEventListener('dragstart', (event) => {
      event.dataTransfer.setData('text/plain', String(index));
      event.dataTransfer.effectAllowed = 'move';
    });
    row.addEventListener('dragover', (event) => event.preventDefault());
    row.addEventListener('drop', (event) => {
      event.preventDefault();
      const from = Number(event.dataTransfer.getData('text/plain'));
      if (Number.isInteger(from) && from !== index) move(list.itemAt(from), index);
    });
  }
  return row;
}

async function toggleFavourite(item, control) {
  const method = item.isFavourite ? 'DELETE' : 'PUT';
  try {
    await command(method, paths.favouriteChannel(item.id), undefined, { control });
    item.isFavourite = !item.isFavourite;
    say(status, item.isFavourite ? `${item.name} is a favourite` : `${item.name} is no longer a favourite`);
    if (favourites) await list.reload();
    else list.render(true);
    list.focus(list.focusIndex);
  } catch (error) {
    say(status, error.message, true);
  }
}

/** Moves favourite `item` to position `to` (0 first). */
async function move(item, to) {
  if (!item || to < 0 || (list.total !== null && to >= list.total)) return;
  try {
    await command('PUT', paths.addFavourite(item.id), { position: to });
    say(status, `${item.name} moved to ${to + 1}`);
    await list.reload();
    await list.focus(to);
  } catch (error) {
    say(status, error.message, true);
  }
}

function play(item, index) {
  // Channel up/down on the player walks the same list.
  sessionStorage.setItem('tuner.playlist', JSON.stringify({
    query: filters().toString(), favourites, index, id: item.id,
  }));
  location.href = `/channel/${item.id}/play`;
}

function onKey(event, item, index) {
  if (!item) return false;
  if (event.key === 'f' || event.key === 'F') {
    toggleFavourite(item, null);
    return true;
  }
  if (favourites && event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
    move(item, index + (event.key === 'ArrowUp' ? -1 : 1));
    return true;
  }
  return false;
}

const list = new VirtualList(container, {
  rowHeight: 72, pageSize: 50, fetchPage, renderRow, onActivate: play, onKey,
  onTotal: (total) => say(status, total === 0 ? 'No channels here.' : `${total} channels`),
});

search.addEventListener('input', debounce(() => {
  const text = search.value.trim();
  // The address follows the search, so it can be shared or bookmarked.
  const path = text ? `/search?q=${encodeURIComponent(text)}` : location.pathname === '/search' ? '/tv' : null;
  if (path) history.replaceState(null, '', path);
  list.reset().catch((error) => say(status, error.message, true));
}, 25));
search.addEventListener('keydown', (event) => {
  if (event.key === 'ArrowDown' || event.key === 'Enter') {
    event.preventDefault();
    list.focus(0);
  }
});

onResync(() => list.reload());
// A new guide brings new now/next.
subscribe('guide', () => list.reload());
// Now and next move on: redraw the rows in view every minute.
setInterval(() => list.reload(), 60000);
list.reset().catch((error) => say(status, error.message, true));
