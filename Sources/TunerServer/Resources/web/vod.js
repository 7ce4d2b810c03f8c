// What the player and the title pages share about films and episodes: their play link (a signed
// proxy URL from the API; the provider's address never reaches the page), what a browser can
// play, and a download through the transfers API.
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';

/** The play answer of a film (`kind` movie) or an episode. */
export function playLink(kind, id) {
  return getJSON(kind === 'episode' ? paths.playEpisode(id) : paths.playChannel(id));
}

/** `mkv` from a link's last path segment, or '' when it names none. */
export function extension(url) {
  const last = new URL(url, location.href).pathname.split('/').pop() || '';
  const match = /\.([A-Za-z0-9]{2,5})$/.exec(last);
  return match ? match[1].toLowerCase() : '';
}

const containers = {
  ts: 'video/mp2t', m2ts: 'video/mp2t', mts: 'video/mp2t', avi: 'video/x-msvideo', wmv: 'video/x-ms-wmv',
  flv: 'video/x-flv',
};

/** Whether this browser has a chance with a file of this extension: MPEG-TS and the old containers
 *  are asked of `canPlayType` (Chromium and Firefox say no); anything else is tried. */
export function browserMayPlay(ext) {
  const type = containers[ext];
  return !type || document.createElement('video').canPlayType(type) !== '';
}

/** Queues a download of `link` (a play answer) named `title`; returns the transfer. */
export async function addDownload(link, title, control) {
  const ext = extension(link.proxyURL);
  const answer = await command('POST', paths.addTransfers,
    { url: link.proxyURL, name: ext ? `${title}.${ext}` : title }, { control });
  return answer.transfers[0];
}
