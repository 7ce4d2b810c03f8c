// The player: a native <video> (HLS plays natively in Chromium, Safari and TVs), channel up/down
// along the list the channel was opened from, an info overlay with now and next, and
// picture-in-picture. A film or an episode plays its file as the provider has it, remembers where
// it was left (resume.js) and can be downloaded; a format the browser cannot play is said in words,
// with the link for another player.
import { clock, nowSeconds, say, el } from './app.js';
import { getJSON } from './command.js';
import { paths } from './api-paths.js';
import { position, remember, forget, mmss } from './resume.js';
import { playLink, extension, browserMayPlay, addDownload } from './vod.js';

const section = document.getElementById('player');
const stage = document.getElementById('stage');
const video = document.getElementById('video');
const overlay = document.getElementById('overlay');
const status = document.getElementById('player-status');
const id = Number(section.dataset.id);
const kind = section.dataset.kind;
const at = section.dataset.at ? Number(section.dataset.at) : null;
let hideTimer = null;

async function start() {
  try {
    let url;
    if (at !== null) {
      // The programme on at that time, else an hour from it.
      const guide = await getJSON(`${paths.channelGuide(id)}?from=${at}&to=${at + 1}`);
      const programme = guide.programmes.find((p) => p.start <= at && at < p.stop);
      const query = programme ? `programme=${programme.id}` : `start=${at}&end=${at + 3600}`;
      const link = await getJSON(`${paths.catchup(id)}?${query}`);
      url = link.proxyURL;
      say(status, `Catch-up from ${clock(link.start)}`);
    } else {
      const link = await getJSON(paths.playChannel(id));
      url = link.hlsURL || link.proxyURL;
    }
    video.src = url;
    await video.play().catch(() => {
      // Autoplay with sound needs a gesture: start muted, the controls unmute.
      video.muted = true;
      return video.play();
    });
  } catch (error) {
    say(status, error.message, true);
  }
}

async function showInfo() {
  overlay.classList.add('shown');
  clearTimeout(hideTimer);
  hideTimer = setTimeout(() => overlay.classList.remove('shown'), 5000);
  try {
    const page = await getJSON(`${paths.guideNow}?ids=${id}`);
    const entry = page.channels[0];
    const now = entry && entry.now;
    const next = entry && entry.next;
    document.getElementById('overlay-now').textContent = now ? `${clock(now.start)}–${clock(now.stop)} ${now.title}` : 'No guide';
    document.getElementById('overlay-next').textContent = next ? `Next ${clock(next.start)} ${next.title}` : '';
    const progress = document.getElementById('overlay-progress');
    progress.hidden = !now;
    if (now) progress.value = Math.min(1, Math.max(0, (nowSeconds() - now.start) / Math.max(1, now.stop - now.start)));
  } catch (error) {
    document.getElementById('overlay-now').textContent = error.message;
  }
}

/** The list the channel was opened from (Live TV keeps it), else every live channel. */
function context() {
  try {
    const saved = JSON.parse(sessionStorage.getItem('tuner.playlist') || 'null');
    if (saved && saved.id === id) return saved;
  } catch {}
  return { query: 'kind=live', favourites: false, index: null, id };
}

async function indexOf(ctx) {
  if (ctx.index !== null) return ctx.index;
  // Opened from a link: find the channel in the full list, a page at a time.
  for (let offset = 0; ; offset += 500) {
    const page = await getJSON(`${paths.channels}?${ctx.query}&offset=${offset}&limit=500`);
    const found = page.items.findIndex((item) => item.id === id);
    if (found >= 0) return offset + found;
    if (offset + 500 >= page.total) return 0;
  }
}

async function zap(step) {
  const ctx = context();
  try {
    const index = await indexOf(ctx);
    const base = ctx.favourites ? paths.favourites : paths.channels;
    const first = await getJSON(`${base}?${ctx.query}&offset=0&limit=1`);
    if (!first.total) return;
    const target = (index + step + first.total) % first.total;
    const page = await getJSON(`${base}?${ctx.query}&offset=${target}&limit=1`);
    const item = page.items[0];
    if (!item) return;
    sessionStorage.setItem('tuner.playlist', JSON.stringify({ ...ctx, index: target, id: item.id }));
    location.href = `/channel/${item.id}/play`;
  } catch (error) {
    say(status, error.message, true);
  }
}

function key(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const steps = { PageUp: 1, ArrowUp: 1, ChannelUp: 1, PageDown: -1, ArrowDown: -1, ChannelDown: -1 };
  if (event.key in steps) {
    event.preventDefault();
    zap(steps[event.key]);
  } else if (event.key === 'i' || event.key === 'I' || event.key === 'Info') {
    event.preventDefault();
    showInfo();
  }
}

// MARK: time-shift

// With the channel's time-shift window on, the player plays the window as fragmented MP4 from an
// instant on (the server follows the channel live from there): pausing holds the stream where it
// is, rewinding seeks in what the browser holds or starts the stream again earlier, Live goes back
// to the newest picture. `origin` is the wall-clock time (ms) of the stream's time 0.
const shift = { on: false, origin: 0, streamURL: '', statusURL: '' };
const behind = document.getElementById('ts-behind');

/** Starts the window's stream at `at` (ms since 1970; null: live). */
async function shiftTo(at) {
  const query = at === null ? '' : `?at=${(at / 1000).toFixed(3)}`;
  const held = await getJSON(`${shift.statusURL}${query}`);
  if (held.startAt == null) {
    // Nothing held yet (the channel was not playing): the stream starts with the window's first
    // segment, whose start the server says once it is there.
    const asked = Date.now();
    shift.origin = asked;
    video.src = shift.streamURL;
    video.addEventListener('loadeddata', async () => {
      const first = await getJSON(`${shift.statusURL}?at=${(asked / 1000).toFixed(3)}`).catch(() => null);
      if (first && first.startAt != null) shift.origin = first.startAt * 1000;
      section.dataset.origin = String(shift.origin);
    }, { once: true });
  } else {
    shift.origin = held.startAt * 1000;
    section.dataset.origin = String(shift.origin);
    video.src = `${shift.streamURL}?from=${held.startAt}`;
  }
  say(status, '');
  await video.play().catch(() => {
    video.muted = true;
    return video.play().catch(() => {});
  });
}

/**
 * Starts the stream again after the gap the last one ended at: from the first segment that
 * starts after the picture shown last (the picture's clock and the segments' may differ by a
 * moment, so the instant is stepped on until the window names a segment not played), else live.
 */
async function shiftAfterGap() {
  const last = shownAt();
  let at = last + 500;
  for (let step = 0; step < 30; step += 1) {
    const held = await getJSON(`${shift.statusURL}?at=${(at / 1000).toFixed(3)}`);
    if (held.startAt == null) return shiftTo(null);
    if (held.startAt * 1000 > last - 250) return shiftTo(held.startAt * 1000);
    at += 2000;
  }
  return shiftTo(null);
}

/** The wall-clock time (ms) of the picture shown. */
const shownAt = () => shift.origin + video.currentTime * 1000;

/** Moves by `seconds`: within what the browser holds at once, else by starting the stream again. */
async function shiftBy(seconds) {
  const target = shownAt() + seconds * 1000;
  if (target >= Date.now() - 2000) return shiftTo(null);
  const time = (target - shift.origin) / 1000;
  const held = video.buffered;
  for (let index = 0; index < held.length; index += 1) {
    if (time >= held.start(index) && time <= held.end(index)) {
      video.currentTime = time;
      return;
    }
  }
  return shiftTo(Math.max(0, target));
}

/** Says how far behind live the picture is, every second. */
function showBehind() {
  const seconds = Math.max(0, Math.round((Date.now() - shownAt()) / 1000));
  section.dataset.behind = String(seconds);
  // The stream starts a segment (a few seconds) behind live: that is still live.
  behind.textContent = seconds <= 10 && !video.paused ? 'Live' : `${mmss(seconds)} behind live`;
}

async function timeshift() {
  try {
    const held = await getJSON(paths.timeshift(id));
    if (!held.keeps) return false;
    shift.on = true;
    shift.streamURL = held.streamURL;
    shift.statusURL = paths.timeshift(id);
    document.getElementById('timeshift').hidden = false;
    const act = (step) => () => step().catch((error) => say(status, error.message, true));
    document.getElementById('ts-back60').addEventListener('click', act(() => shiftBy(-60)));
    document.getElementById('ts-back10').addEventListener('click', act(() => shiftBy(-10)));
    document.getElementById('ts-forward10').addEventListener('click', act(() => shiftBy(10)));
    document.getElementById('ts-live').addEventListener('click', act(() => shiftTo(null)));
    setInterval(showBehind, 1000);
    // The stream ends where the window has a gap (the channel stopped, failed over): on after it.
    // A picture the browser cannot decode is stepped over the same way, at most every 5 s.
    let lastRestart = 0;
    const onwards = () => {
      if (Date.now() - lastRestart < 5000) return;
      lastRestart = Date.now();
      shiftAfterGap().catch((error) => say(status, error.message, true));
    };
    video.addEventListener('ended', onwards);
    video.addEventListener('error', onwards);
    await shiftTo(null);
    return true;
  } catch (error) {
    say(status, error.message, true);
    return true;
  }
}

function shiftKey(event) {
  if (!shift.on || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    shiftBy(event.key === 'ArrowLeft' ? -10 : 10).catch((error) => say(status, error.message, true));
  } else if (event.key === ' ' || event.key === 'k') {
    if (video.paused) video.play().catch(() => {});
    else video.pause();
  } else {
    return;
  }
  event.preventDefault();
}

async function live() {
  stage.addEventListener('keydown', key);
  stage.addEventListener('keydown', shiftKey);
  document.getElementById('channel-up').addEventListener('click', () => zap(1));
  document.getElementById('channel-down').addEventListener('click', () => zap(-1));
  document.getElementById('info').addEventListener('click', showInfo);
  video.addEventListener('error', () => {
    const error = video.error;
    say(status, error ? `The stream cannot be played (${error.message || error.code})` : 'The stream stopped', true);
  });
  showInfo();
  // Catch-up (a past programme) plays as the provider has it; live plays the window when the
  // channel keeps one, else the channel's own stream.
  if (at === null && await timeshift()) return;
  start();
}

// MARK: films and episodes

const formats = { ts: 'an MPEG-TS file', m2ts: 'an MPEG-TS file', mts: 'an MPEG-TS file', mkv: 'a Matroska file',
  avi: 'an AVI file', wmv: 'a WMV file', flv: 'a Flash video file' };

/** Says that the browser cannot play this file, and offers its link for VLC or another player. */
function unplayable(ext, detail) {
  const what = formats[ext] || (ext ? `a .${ext} file` : 'a file');
  say(status, `This browser cannot play ${what}${detail ? ` (${detail})` : ''}, and Tuner has no browser `
    + 'remux for films and episodes yet (live channels get one). Download it, or open the link below in VLC.', true);
  document.getElementById('external').hidden = false;
}

async function vod() {
  const back = section.dataset.back;
  const resume = document.getElementById('resume');
  const title = section.dataset.name;
  let link;
  try {
    link = await playLink(kind, id);
  } catch (error) {
    say(status, error.message, true);
    return;
  }
  document.getElementById('external-link').value = link.proxyURL;
  const download = document.getElementById('download');
  download.addEventListener('click', async () => {
    try {
      await addDownload(link, title, download);
      status.replaceChildren(`${title} is downloading: see `, el('a', { href: '/downloads', text: 'Downloads' }), '.');
      status.classList.remove('error');
    } catch (error) {
      say(status, error.message, true);
    }
  });
  // What the server offers browsers (HLS, when it has it for this item), else the file itself.
  const source = link.hlsURL || link.proxyURL;
  const ext = link.hlsURL ? 'm3u8' : extension(link.proxyURL);
  if (!browserMayPlay(ext)) {
    unplayable(ext);
    return;
  }
  const saved = position(kind, id);
  let lastSaved = 0;
  video.addEventListener('loadedmetadata', () => {
    if (saved === null) return;
    if (location.hash === '#resume') {
      video.currentTime = saved;
      say(status, `Resumed at ${mmss(saved)}`);
    } else {
      resume.textContent = `Resume at ${mmss(saved)}`;
      resume.hidden = false;
    }
  }, { once: true });
  resume.addEventListener('click', () => {
    video.currentTime = saved;
    resume.hidden = true;
    say(status, `Resumed at ${mmss(saved)}`);
    stage.focus();
  });
  // Remember the position as it plays (every few seconds), when paused and when leaving; past the
  // first seconds only, so opening a film and leaving at once keeps the earlier resume point.
  const keep = () => {
    if (video.currentTime >= 5) remember(kind, id, video.currentTime, video.duration);
  };
  video.addEventListener('timeupdate', () => {
    if (Math.abs(video.currentTime - lastSaved) < 3) return;
    lastSaved = video.currentTime;
    keep();
  });
  video.addEventListener('pause', keep);
  video.addEventListener('seeked', keep);
  window.addEventListener('pagehide', keep);
  video.addEventListener('ended', () => forget(kind, id));
  video.addEventListener('error', () => {
    const error = video.error;
    unplayable(ext, error && (error.message || `media error ${error.code}`));
  });
  stage.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') {
      keep();
      location.href = back;
    } else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      video.currentTime = Math.max(0, video.currentTime + (event.key === 'ArrowLeft' ? -10 : 10));
    } else if (event.key === ' ' || event.key === 'Enter' || event.key === 'k') {
      if (video.paused) video.play().catch(() => {});
      else video.pause();
    } else {
      return;
    }
    event.preventDefault();
  });
  document.querySelector('#external .copy').addEventListener('click', (event) => {
    const input = document.getElementById('external-link');
    input.select();
    document.execCommand('copy');
    event.currentTarget.textContent = 'Copied';
  });
  video.src = source;
  await video.play().catch(() => {
    video.muted = true;
    return video.play().catch(() => {});
  });
}

const pip = document.getElementById('pip');
if (!document.pictureInPictureEnabled) pip.disabled = true;
pip.addEventListener('click', async () => {
  try {
    if (document.pictureInPictureElement) await document.exitPictureInPicture();
    else await video.requestPictureInPicture();
  } catch (error) {
    say(status, error.message, true);
  }
});

stage.focus();
if (kind === 'live') live();
else vod();
