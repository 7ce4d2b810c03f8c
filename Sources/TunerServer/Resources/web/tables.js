// The small live pages: Streams (who watches what, `streams` events), Cache (figures refreshed on
// `cache` events) and Outputs (copy buttons).
import { el, bytes, say, copyButtons } from './app.js';
import { getJSON } from './command.js';
import { paths } from './api-paths.js';
import { subscribe, onResync } from './events.js';

const page = document.body.dataset.page;

function drawStreams(streams) {
  const body = document.getElementById('streams');
  const rows = streams.map((stream) => el('tr', { 'data-id': stream.id },
    el('td', {}, el('a', { href: `/channel/${stream.channelID}/play`, text: stream.channelName })),
    el('td', { text: stream.sourceName || '' }),
    el('td', { text: stream.profile }),
    el('td', { text: String(stream.viewers.length) }),
    el('td', { text: `${bytes(stream.upstreamBytesPerSecond)}/s` }),
    el('td', { text: `${bytes(stream.downstreamBytesPerSecond)}/s` })));
  body.replaceChildren(...rows);
  say(document.getElementById('streams-status'), rows.length ? '' : 'Nobody is watching a live channel.');
}

async function loadStreams() {
  try {
    drawStreams((await getJSON(paths.streams)).streams);
  } catch (error) {
    say(document.getElementById('streams-status'), error.message, true);
  }
}

async function loadCache() {
  drawCache(await getJSON(paths.cacheStats));
}

function drawCache(stats) {
  const served = stats.hitBytes + stats.missBytes;
  document.getElementById('cache-bytes').textContent = `${bytes(stats.bytes)} of ${bytes(stats.capacity)}`;
  document.getElementById('cache-entries').textContent = String(stats.entries);
  document.getElementById('cache-ratio').textContent = `${(served ? (stats.hitBytes / served) * 100 : 0).toFixed(1)} %`;
  document.getElementById('cache-hits').textContent = bytes(stats.hitBytes);
  document.getElementById('cache-misses').textContent = bytes(stats.missBytes);
  document.getElementById('cache-fetches').textContent = String(stats.activeFetches);
  document.getElementById('cache-fill').value = stats.capacity ? stats.bytes / stats.capacity : 0;
}

if (page === 'streams') {
  subscribe('streams', (event) => drawStreams(event.data || []));
  onResync(loadStreams);
  loadStreams();
} else if (page === 'cache') {
  // `cache.stats` carries the figures (every two seconds while they change); other cache events
  // (clear, trim, pins) send for them.
  subscribe('cache', (event) => {
    if (event.type === 'cache.stats' && event.data) drawCache(event.data);
    else loadCache().catch(() => {});
  });
  onResync(() => loadCache().catch(() => {}));
} else if (page === 'outputs') {
  copyButtons();
}
