// Films and Series: a poster grid (only the rows in view are in the DOM, so thousands of titles
// scroll smoothly), filtered by group and searched as you type. Posters come through Tuner
// (`paths.channelLogo`), never from the provider. The address follows the filters, and
// coming back (Escape on a title) returns the focus to the title that was opened.
import { el, debounce, say } from './app.js';
import { getJSON } from './command.js';
import { paths } from './api-paths.js';
import { onResync } from './events.js';
import { VirtualGrid } from './vgrid.js';

const container = document.getElementById('library-grid');
const status = document.getElementById('library-status');
const search = document.getElementById('library-search');
const group = document.getElementById('library-group');
const kind = container.dataset.kind;
const base = container.dataset.base;
const noun = kind === 'movie' ? 'films' : 'series';
const remembered = `tuner.library.${kind}`;

// The filters from the address: /films?group=Drama&q=war
const initial = new URLSearchParams(location.search);
search.value = initial.get('q') || '';
if (initial.get('group') && [...group.options].some((option) => option.value === initial.get('group'))) {
  group.value = initial.get('group');
}

function filters() {
  const params = new URLSearchParams({ kind });
  if (group.value) params.set('group', group.value);
  const text = search.value.trim();
  if (text) params.set('search', text);
  return params;
}

function address() {
  const params = new URLSearchParams();
  if (group.value) params.set('group', group.value);
  const text = search.value.trim();
  if (text) params.set('q', text);
  const query = params.toString();
  return query ? `${base}?${query}` : base;
}

async function fetchPage(offset, limit) {
  const params = filters();
  params.set('offset', offset);
  params.set('limit', limit);
  const page = await getJSON(`${paths.channels}?${params}`);
  return { total: page.total, items: page.items };
}

function renderCell(item, index) {
  const poster = item.logo
    ? el('img', { class: 'poster', src: paths.channelLogo(item.id), alt: '', loading: 'lazy' })
    : el('span', { class: 'poster placeholder', 'aria-hidden': 'true', text: item.name.slice(0, 1) });
  return el('a', {
    class: 'card-cell', href: `${base}/${item.id}`, role: 'listitem', 'data-id': item.id,
    onclick: () => rememberPlace(index),
    onkeydown: (event) => {
      if (event.key === 'Enter') rememberPlace(index);
    },
  }, poster, el('span', { class: 'title', text: item.name }), el('span', { class: 'group', text: item.group || '' }));
}

function rememberPlace(index) {
  sessionStorage.setItem(remembered, JSON.stringify({ address: address(), index }));
}

const grid = new VirtualGrid(container, {
  cellWidth: 168, rowHeight: 300, pageSize: 120, fetchPage, renderCell,
  onTotal: (total) => say(status, total === 0 ? `No ${noun} here.` : `${total} ${noun}`),
});

function reload() {
  history.replaceState(null, '', address());
  return grid.reset().catch((error) => say(status, error.message, true));
}

search.addEventListener('input', debounce(reload, 200));
search.addEventListener('keydown', (event) => {
  if (event.key === 'ArrowDown' || event.key === 'Enter') {
    event.preventDefault();
    grid.focus(0);
  } else if (event.key === 'Escape' && search.value) {
    search.value = '';
    reload();
  }
});
group.addEventListener('change', reload);
onResync(() => grid.reset());

reload().then(() => {
  // Back from a title: the focus returns to it.
  try {
    const place = JSON.parse(sessionStorage.getItem(remembered) || 'null');
    if (place && place.address === address()) grid.focus(place.index);
  } catch {}
});
