// Where each film and episode was left, in this browser's localStorage: the player remembers the
// position as it plays, the details pages and the player offer "Resume at mm:ss". Near the start
// or the end nothing is kept (there is nothing to resume), and only the newest 300 are kept.

const KEY = 'tuner.resume';
const LIMIT = 300;

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || '{}');
    return saved && typeof saved === 'object' ? saved : {};
  } catch {
    return {};
  }
}

function save(all) {
  const entries = Object.entries(all).sort((a, b) => b[1].at - a[1].at).slice(0, LIMIT);
  try {
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(entries)));
  } catch {
    // A full or disabled storage only loses the resume point.
  }
}

/** `movie:12`, `episode:7`: what a position belongs to. */
export function itemKey(kind, id) {
  return `${kind === 'episode' ? 'episode' : 'movie'}:${id}`;
}

/** The remembered position of `kind` `id` in seconds, or null. */
export function position(kind, id) {
  const entry = load()[itemKey(kind, id)];
  return entry && Number.isFinite(entry.position) ? entry.position : null;
}

/** Remembers `seconds` into `duration` (forgets it near the start or the end). */
export function remember(kind, id, seconds, duration) {
  const all = load();
  const key = itemKey(kind, id);
  const nearEnd = Number.isFinite(duration) && duration > 0 && (seconds > duration - 20 || seconds / duration > 0.97);
  if (!Number.isFinite(seconds) || seconds < 5 || nearEnd) {
    if (!(key in all)) return;
    delete all[key];
  } else {
    all[key] = { position: Math.floor(seconds), duration: Number.isFinite(duration) ? duration : null, at: Date.now() };
  }
  save(all);
}

export function forget(kind, id) {
  const all = load();
  delete all[itemKey(kind, id)];
  save(all);
}

/** `4:05`, or `1:02:03` past an hour. */
export function mmss(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}
