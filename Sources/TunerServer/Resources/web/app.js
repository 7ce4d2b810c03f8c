// What every page shares: the live connection indicator, arrow keys in the navigation and in
// simple lists, and small formatting helpers.
import { start } from './events.js';

/** An element with children; text is set as text, never parsed as HTML. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'text') node.textContent = value;
    else if (name === 'class') node.className = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Arrow keys move focus among `selector` inside `container` (Up/Left back, Down/Right on, Home, End). */
export function arrowNavigation(container, selector, { horizontal = true, vertical = true } = {}) {
  if (!container) return;
  container.addEventListener('keydown', (event) => {
    const back = (vertical && event.key === 'ArrowUp') || (horizontal && event.key === 'ArrowLeft');
    const on = (vertical && event.key === 'ArrowDown') || (horizontal && event.key === 'ArrowRight');
    if (!back && !on && event.key !== 'Home' && event.key !== 'End') return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const items = [...container.querySelectorAll(selector)].filter((item) => !item.disabled);
    const index = items.indexOf(document.activeElement);
    if (index < 0) return;
    let next = index;
    if (back) next = Math.max(0, index - 1);
    if (on) next = Math.min(items.length - 1, index + 1);
    if (event.key === 'Home') next = 0;
    if (event.key === 'End') next = items.length - 1;
    event.preventDefault();
    items[next].focus();
  });
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** `14:05`, in the browser's time zone. */
// One formatter, and each time formatted once: `toLocaleTimeString` with options builds a new
// formatter per call, and the guide shows hundreds of times per frame while it scrolls.
const clockFormat = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const clockTexts = new Map();
export function clock(seconds) {
  let text = clockTexts.get(seconds);
  if (text === undefined) {
    if (clockTexts.size > 4096) clockTexts.clear();
    text = clockFormat.format(new Date(seconds * 1000));
    clockTexts.set(seconds, text);
  }
  return text;
}

export function bytes(count) {
  if (count === null || count === undefined) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export function duration(seconds) {
  if (seconds === null || seconds === undefined || !isFinite(seconds)) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function nowSeconds() {
  return Date.now() / 1000;
}

/** Writes `message` to a status line (a `role=status` element), as an error when `error`. */
export function say(element, message, error = false) {
  if (!element) return;
  element.textContent = message || '';
  element.classList.toggle('error', !!error);
}

/** Each `button.copy` copies the field before it (a link, a new key's secret). */
export function copyButtons(root = document) {
  for (const button of root.querySelectorAll('button.copy')) {
    button.addEventListener('click', async () => {
      const input = button.previousElementSibling;
      input.select();
      try {
        // The clipboard API needs a secure context; a LAN http page falls back to the selection.
        if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(input.value);
        else document.execCommand('copy');
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Select and copy';
      }
      setTimeout(() => (button.textContent = 'Copy'), 2000);
    });
  }
}

arrowNavigation(document.querySelector('header.top nav'), 'a');
arrowNavigation(document.querySelector('.group-list'), 'a', { horizontal: false });
start();
