// The page's one WebSocket to the events endpoint (`paths.events`): subscribe to topics, resume after a reconnect with
// ?epoch=E&after=N, and reload state (the `resync` handlers) when the server says the page missed
// too much or restarted. Reconnects with exponential backoff and jitter; shows its state in the
// header's connection indicator.
import { paths } from './api-paths.js';

const handlers = new Map(); // topic -> Set of functions(event)
const resyncHandlers = new Set();
const topics = new Set();
let socket = null;
let epoch = null;
let lastSeq = null;
let attempt = 0;
let scheduled = null;

/** Calls `handler(event)` for every event of `topic` (transfers, imports, cache, streams, guide). */
export function subscribe(topic, handler) {
  if (!handlers.has(topic)) handlers.set(topic, new Set());
  handlers.get(topic).add(handler);
  if (!topics.has(topic)) {
    topics.add(topic);
    // A socket already open asks for other topics: open one that asks for all of them.
    if (socket && socket.readyState <= WebSocket.OPEN) {
      socket.onclose = null;
      socket.close();
      socket = null;
    }
  }
  start();
}

/** Calls `handler(reason)` when the page should reload what it shows. */
export function onResync(handler) {
  resyncHandlers.add(handler);
}

/** Connects (once), after the modules of the page have subscribed. */
export function start() {
  if (socket || scheduled) return;
  scheduled = setTimeout(connect, 0);
}

function address() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const wanted = topics.size ? [...topics].join(',') : 'server';
  let url = `${scheme}//${location.host}${paths.events}?topics=${encodeURIComponent(wanted)}`;
  if (epoch !== null && lastSeq !== null) url += `&epoch=${encodeURIComponent(epoch)}&after=${lastSeq}`;
  return url;
}

function connect() {
  scheduled = null;
  setState(attempt === 0 ? 'connecting' : 'reconnecting');
  const ws = new WebSocket(address());
  socket = ws;
  ws.onopen = () => {
    attempt = 0;
    setState('live');
  };
  ws.onmessage = (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    if (event.hello) {
      const restarted = epoch !== null && event.hello.epoch !== epoch;
      if (epoch === null || restarted) lastSeq = event.hello.seq;
      epoch = event.hello.epoch;
      if (restarted) resync('restart');
      return;
    }
    if (typeof event.seq === 'number') lastSeq = event.seq;
    if (event.epoch) epoch = event.epoch;
    if (event.type === 'resync') {
      resync(event.data && event.data.reason);
      return;
    }
    for (const handler of handlers.get(event.topic) || []) {
      try {
        handler(event);
      } catch (error) {
        console.error(error);
      }
    }
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    setState('reconnecting');
    scheduled = setTimeout(connect, backoff(attempt++));
  };
}

/** Exponential from 0.5 s, capped at 30 s, with full jitter over its upper half. */
export function backoff(attempt) {
  const ceiling = Math.min(30000, 500 * 2 ** Math.min(attempt, 16));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function resync(reason) {
  for (const handler of resyncHandlers) {
    try {
      handler(reason);
    } catch (error) {
      console.error(error);
    }
  }
}

function setState(state) {
  const indicator = document.getElementById('connection');
  if (!indicator) return;
  indicator.dataset.state = state;
  const words = { connecting: 'connecting', live: 'live', reconnecting: 'reconnecting' }[state] || state;
  indicator.querySelector('.label').textContent = words;
  indicator.title = `Live updates: ${words}`;
}
