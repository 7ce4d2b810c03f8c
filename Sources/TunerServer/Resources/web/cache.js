// The Cache page: the figures (tables.js keeps them live), the hit ratio minute by minute over
// the last day as a small chart, the pinned resources (unpin), and preloads (start, follow,
// cancel). Everything it changes goes through the API with command.js.
import './tables.js';
import { el, bytes, say } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';
import { subscribe, onResync } from './events.js';

const SVG = 'http://www.w3.org/2000/svg';
const chart = document.getElementById('cache-chart');
const pins = document.getElementById('cache-pins');
const preloads = document.getElementById('cache-preloads');
const status = document.getElementById('cache-status');

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/** One bar per minute with traffic: its height is the share served from the cache. */
async function loadHistory() {
  const { samples } = await getJSON(paths.cacheHistory);
  const width = 720;
  const height = 120;
  const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'chart' });
  const served = samples.filter((s) => s.hitBytes + s.missBytes > 0);
  picture.append(svg('line', { x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5, class: 'axis' }));
  const bar = width / Math.max(60, samples.length);
  samples.forEach((sample, index) => {
    const total = sample.hitBytes + sample.missBytes;
    if (!total) return;
    const share = sample.hitBytes / total;
    const h = Math.max(1, share * (height - 4));
    const rect = svg('rect', { x: index * bar, y: height - h, width: Math.max(1, bar - 1), height: h, class: 'bar' });
    const title = svg('title', {});
    title.textContent = `${new Date(sample.at).toLocaleTimeString()}: ${(share * 100).toFixed(0)} % of ${bytes(total)}`;
    rect.append(title);
    picture.append(rect);
  });
  const hits = served.reduce((sum, s) => sum + s.hitBytes, 0);
  const total = served.reduce((sum, s) => sum + s.hitBytes + s.missBytes, 0);
  const label = total
    ? `Hit ratio by minute, last ${samples.length} minutes: ${((hits / total) * 100).toFixed(1)} % of ${bytes(total)}`
    : 'Hit ratio by minute: nothing served yet';
  picture.setAttribute('aria-label', label);
  chart.replaceChildren(picture, el('p', { class: 'hint', text: label }));
}

async function loadPins() {
  const list = (await getJSON(paths.cachePins)).pins;
  pins.replaceChildren(...list.map((pin) => el('li', {},
    el('span', { class: 'url', text: pin.url }), ' ', el('span', { class: 'muted', text: bytes(pin.bytes) }), ' ',
    el('button', {
      type: 'button', class: 'unpin', 'data-key': pin.key,
      onclick: async (event) => {
        await command('DELETE', paths.unpin(pin.key), undefined,
          { control: event.currentTarget }).catch((error) => say(status, error.message, true));
        loadPins().catch(() => {});
      },
    }, 'Unpin'))));
  if (!list.length) pins.replaceChildren(el('li', { class: 'muted', text: 'Nothing pinned.' }));
}

async function loadPreloads() {
  const list = (await getJSON(paths.preloads)).preloads;
  preloads.replaceChildren(...list.map((job) => {
    const total = job.segmentsTotal ?? job.bytesTotal;
    const done = job.segmentsTotal !== undefined && job.segmentsTotal !== null ? job.segmentsDone : job.bytesDone;
    const bar = el('progress', { max: 1, class: 'preload' });
    if (total) bar.value = Math.min(1, done / total);
    return el('li', { 'data-state': job.state },
      el('span', { class: 'url', text: job.url }), ' ', bar, ' ',
      el('span', { class: 'muted', text: `${job.state}${job.error ? `: ${job.error}` : ''}` }), ' ',
      job.state === 'running' ? el('button', {
        type: 'button',
        onclick: (event) => command('DELETE', paths.cancelPreload(job.id), undefined,
          { control: event.currentTarget }).then(loadPreloads).catch((error) => say(status, error.message, true)),
      }, 'Cancel') : null);
  }));
  if (!list.length) preloads.replaceChildren(el('li', { class: 'muted', text: 'No preloads.' }));
  if (list.some((job) => job.state === 'running')) setTimeout(() => loadPreloads().catch(() => {}), 1000);
}

document.getElementById('pin-form')?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const url = form.elements.namedItem('url').value.trim();
  try {
    await command('POST', paths.cachePin, { url, pinned: true }, { control: form.querySelector('button') });
    form.reset();
    await loadPins();
  } catch (error) { say(status, error.message, true); }
});

document.getElementById('preload-form')?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const url = form.elements.namedItem('url').value.trim();
  const seconds = Number(form.elements.namedItem('seconds').value);
  const body = seconds > 0 ? { url, seconds } : { url };
  try {
    await command('POST', paths.startPreload, body, { control: form.querySelector('button') });
    form.reset();
    await loadPreloads();
  } catch (error) { say(status, error.message, true); }
});

function loadAll() {
  loadHistory().catch((error) => say(status, error.message, true));
  loadPins().catch((error) => say(status, error.message, true));
  loadPreloads().catch((error) => say(status, error.message, true));
}
// Pins and preloads change with the cache's own events, not with its running figures.
subscribe('cache', (event) => { if (event.type !== 'cache.stats') loadAll(); });
onResync(loadAll);
// A new sample every minute.
setInterval(() => loadHistory().catch(() => {}), 60000);
loadAll();
