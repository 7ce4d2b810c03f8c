// A film's or a series' page: details from the provider (plot, year, rating, duration, where the
// catalog has them), Play, "Resume at mm:ss" (remembered by this browser), Download (a transfer
// through the API, its bar following the `transfers` events); a series' seasons and episodes.
// Escape goes back to the grid.
import { el, say, duration, arrowNavigation } from './app.js';
import { getJSON } from './command.js';
import { paths } from './api-paths.js';
import { subscribe, onResync } from './events.js';
import { position, mmss } from './resume.js';
import { playLink, addDownload } from './vod.js';

const section = document.getElementById('title');
const status = document.getElementById('title-status');
const id = Number(section.dataset.id);
const kind = section.dataset.kind;
const name = document.getElementById('title-name').textContent;
const watched = new Map(); // transfer id -> {bar, words, holder, title, events}
// The newest event of each transfer not watched (yet): a short download can end before the
// answer to its POST arrives here, and its last event must not be lost then.
const unwatched = new Map(); // transfer id -> [task, progress]

/** Year · rating · running time · genre, from what the provider told. */
async function loadDetails() {
  let details;
  try {
    details = await getJSON(paths.movieDetails(id));
  } catch {
    // A playlist's film has no details (only Xtream panels give them): the page shows what it has.
    return null;
  }
  const facts = [];
  const year = details.releaseDate && /^(\d{4})/.exec(details.releaseDate);
  if (year) facts.push(year[1]);
  if (Number.isFinite(details.rating) && details.rating > 0) facts.push(`★ ${details.rating.toFixed(1)}`);
  if (details.durationSeconds) facts.push(duration(details.durationSeconds));
  if (details.genre) facts.push(details.genre);
  document.getElementById('facts').textContent = facts.join(' · ');
  document.getElementById('plot').textContent = details.plot || '';
  return details;
}

/** Queues a download of the film (`episode` absent) or of an episode, through Tuner's proxy. */
async function download(control, episode) {
  try {
    const link = await playLink(episode ? 'episode' : 'movie', episode ? episode.id : id);
    const title = episode ? `${name} ${episodeLabel(episode)} ${episode.title}`.trim() : name;
    const transfer = await addDownload(link, title, control);
    const bar = el('progress', { max: 1, value: 0, 'aria-label': `Download of ${title}` });
    const words = el('span', { class: 'words', text: 'queued' });
    const holder = episode ? control.closest('li').querySelector('.download-progress')
      : document.getElementById('download-progress');
    holder.replaceChildren(bar, ' ', words, ' ', el('a', { href: '/downloads', text: 'Downloads' }));
    holder.hidden = false;
    holder.dataset.transfer = transfer.id;
    watched.set(transfer.id, { bar, words, holder, title, events: 0 });
    // Said first: an early event applied below may already say it is downloaded.
    say(status, `${title} is downloading.`);
    show(transfer);
    const early = unwatched.get(transfer.id);
    unwatched.delete(transfer.id);
    if (early) show(...early);
  } catch (error) {
    say(status, error.message, true);
  }
}

function show(task, progress) {
  const entry = watched.get(task.id);
  if (!entry) return;
  const total = (progress && progress.total) || task.totalBytes;
  const done = progress ? progress.bytes : task.committedBytes;
  if (task.state === 'complete') entry.bar.value = 1;
  else if (total && done !== undefined) entry.bar.value = Math.min(1, done / total);
  entry.holder.dataset.state = task.state || entry.holder.dataset.state;
  entry.words.textContent = task.state === 'complete' ? 'downloaded'
    : `${task.state || 'active'} ${Math.floor(entry.bar.value * 100)} %`;
  if (task.state === 'complete') say(status, `${entry.title} is downloaded (in the data folder's downloads/).`);
  else if (task.state === 'error') say(status, `${entry.title}: ${task.errorReason || 'the download failed'}`, true);
}

subscribe('transfers', (event) => {
  let args;
  if (event.type === 'transfer.changed') args = [event.data];
  else if (event.type === 'transfer.progress') args = [{ id: event.data.id, state: 'active' }, event.data];
  else return;
  const entry = watched.get(event.data.id);
  if (entry) {
    entry.events += 1;
    show(...args);
  } else if (event.type === 'transfer.changed' || !unwatched.has(event.data.id)) {
    // A change (a new state) is kept over progress; a few dozen at most are kept.
    unwatched.delete(event.data.id);
    unwatched.set(event.data.id, args);
    if (unwatched.size > 50) unwatched.delete(unwatched.keys().next().value);
  }
});

// Events were missed (a reconnect too late to resume, a server restart): ask for each bar's task.
// An answer is older than an event that came while it was fetched (as with the Downloads page's
// reload), so it is shown only if none did.
onResync(async () => {
  for (const [id, watching] of watched) {
    try {
      const events = watching.events;
      const entry = await getJSON(paths.transfer(id));
      if (watching.events === events) show(entry, entry.state === 'active' ? entry.progress : undefined);
    } catch {
      // Deleted meanwhile: the bar keeps its last state.
    }
  }
});

function episodeLabel(episode) {
  if (episode.season !== null && episode.season !== undefined && episode.episode !== null
    && episode.episode !== undefined) return `S${episode.season} E${episode.episode}`;
  if (episode.episode !== null && episode.episode !== undefined) return `E${episode.episode}`;
  return '';
}

function resumeText(kindName, itemID) {
  const at = position(kindName, itemID);
  return at === null ? null : `Resume at ${mmss(at)}`;
}

// A film: Resume when this browser left it part-way; Download.
function film() {
  const resume = document.getElementById('resume');
  const text = resumeText('movie', id);
  if (text) {
    resume.textContent = text;
    resume.hidden = false;
  }
  const button = document.getElementById('download');
  button.addEventListener('click', () => download(button, null));
  arrowNavigation(document.getElementById('title-actions'), 'a:not([hidden]), button', { vertical: false });
  document.getElementById(text ? 'resume' : 'play').focus();
}

// A series: one season at a time (a long series stays small in the DOM), each episode with Play,
// Resume and Download.
async function series() {
  const seasons = document.getElementById('seasons');
  const list = document.getElementById('episodes');
  let answer;
  try {
    answer = await getJSON(paths.episodes(id));
  } catch (error) {
    say(status, error.message, true);
    return;
  }
  if (!answer.total) {
    say(status, 'This series has no episodes.');
    return;
  }
  const count = answer.seasons.length;
  document.getElementById('facts').textContent = `${count} ${count === 1 ? 'season' : 'seasons'} · `
    + `${answer.total} ${answer.total === 1 ? 'episode' : 'episodes'}`;
  const label = (season) => (season.season === null || season.season === undefined ? 'Episodes'
    : `Season ${season.season}`);
  const showSeason = (index, focus) => {
    for (const [i, button] of [...seasons.children].entries()) button.setAttribute('aria-pressed', String(i === index));
    const season = answer.seasons[index];
    list.replaceChildren(...season.episodes.map((episode) => {
      const play = `/episode/${episode.id}/play`;
      const resume = resumeText('episode', episode.id);
      const button = el('button', { type: 'button', class: 'download', text: 'Download' });
      button.addEventListener('click', () => download(button, episode));
      return el('li', { class: 'episode', 'data-id': episode.id },
        el('span', { class: 'number', text: episodeLabel(episode) }),
        el('span', { class: 'title', text: episode.title }),
        el('span', { class: 'length', text: episode.duration ? duration(episode.duration) : '' }),
        el('span', { class: 'actions' },
          el('a', { class: 'button primary play', href: play, text: '▶ Play' }),
          resume ? el('a', { class: 'button resume', href: `${play}#resume`, text: resume }) : null,
          button),
        el('div', { class: 'download-progress', hidden: true }));
    }));
    if (focus) list.querySelector('a')?.focus();
  };
  seasons.replaceChildren(...answer.seasons.map((season, index) => el('button', {
    type: 'button', 'aria-pressed': 'false', text: `${label(season)} (${season.episodes.length})`,
    onclick: () => showSeason(index, false),
  })));
  arrowNavigation(seasons, 'button', { vertical: false });
  arrowNavigation(list, 'a, button');
  showSeason(0, false);
  (seasons.querySelector('button') || list.querySelector('a')).focus();
}

document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || event.target.closest('input, select, textarea')) return;
  event.preventDefault();
  // Back to the grid, where the focus returns to this title.
  if (document.referrer && new URL(document.referrer).pathname === section.dataset.back) history.back();
  else location.href = section.dataset.back;
});

if (kind === 'movie') {
  film();
  loadDetails();
} else {
  series();
}
