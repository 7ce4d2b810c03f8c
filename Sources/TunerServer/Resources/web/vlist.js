// A list of any length that keeps only the rows in view (and a few around) in the DOM. Rows have
// one height; data comes in pages from `fetchPage(offset, limit)`, kept in a small cache. Arrow
// keys, PageUp/PageDown, Home and End move the focus; Enter activates the focused row.

import { PagedItems, frameScheduler } from './paged.js';

export class VirtualList {
  constructor(container, { rowHeight, pageSize = 100, fetchPage, renderRow, onActivate, onKey, onTotal }) {
    this.container = container;
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.onActivate = onActivate;
    this.onKey = onKey;
    this.items = new PagedItems({
      pageSize, keep: 6, fetchPage,
      onPage: (total) => {
        this.sizer.style.height = `${total * this.rowHeight}px`;
        // Only pages of the current query get here (PagedItems drops stale ones), so the
        // total said beside the list is always the one it shows.
        if (onTotal) onTotal(total);
        this.render(true);
      },
    });
    this.schedule = frameScheduler(() => this.render(false));
    this.focusIndex = 0;
    this.rows = new Map(); // index -> element
    this.sizer = document.createElement('div');
    this.sizer.className = 'vlist-sizer';
    container.append(this.sizer);
    container.addEventListener('scroll', () => this.schedule(), { passive: true });
    window.addEventListener('resize', () => this.schedule());
    container.addEventListener('keydown', (event) => this.key(event));
    container.addEventListener('click', (event) => {
      const row = event.target.closest('[data-index]');
      if (!row || event.target.closest('button')) return;
      this.focusIndex = Number(row.dataset.index);
      this.activate();
    });
    container.addEventListener('focusin', (event) => {
      const row = event.target.closest('[data-index]');
      if (row) this.focusIndex = Number(row.dataset.index);
      // While a row has the focus the list itself is no tab stop: Shift+Tab from a row leaves
      // the list, instead of landing on it and being handed back to the row.
      if (event.target !== container) container.tabIndex = -1;
    });
    container.addEventListener('focusout', (event) => {
      if (!container.contains(event.relatedTarget)) container.tabIndex = 0;
    });
    // The list itself takes the focus on Tab and hands it to the current row.
    container.tabIndex = 0;
    container.addEventListener('focus', () => {
      if (this.total) this.focus(this.focusIndex);
    });
  }

  get total() {
    return this.items.total;
  }

  /** Forgets everything and loads from the first row. */
  reset() {
    this.items.clear({ total: true });
    this.focusIndex = 0;
    this.container.scrollTop = 0;
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    return this.items.load(0);
  }

  /** Loads the rows in view again, keeping the position (after a change or a resync). */
  reload() {
    this.items.clear();
    const first = Math.floor(this.container.scrollTop / this.rowHeight);
    return this.items.load(this.items.pageOf(first));
  }

  itemAt(index) {
    return this.items.itemAt(index);
  }

  /** Draws the rows in view (plus a few), and asks for the pages they need. */
  render(force) {
    if (this.total === null) return;
    const top = this.container.scrollTop;
    const height = this.container.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / this.rowHeight) - 4);
    const last = Math.min(this.total - 1, Math.ceil((top + height) / this.rowHeight) + 4);
    for (const [index, row] of this.rows) {
      if (index < first || index > last) {
        // Keep the focused row while it has the focus: the browser would otherwise drop it.
        if (row.contains(document.activeElement)) continue;
        row.remove();
        this.rows.delete(index);
      }
    }
    for (let index = first; index <= last; index++) {
      const item = this.itemAt(index);
      if (item === undefined) {
        this.items.load(this.items.pageOf(index));
        continue;
      }
      let row = this.rows.get(index);
      if (row && !force && row.dataset.filled === '1') continue;
      const fresh = this.renderRow(item, index);
      fresh.dataset.index = String(index);
      fresh.dataset.filled = '1';
      fresh.classList.add('vrow');
      fresh.style.top = `${index * this.rowHeight}px`;
      fresh.style.height = `${this.rowHeight}px`;
      fresh.tabIndex = index === this.focusIndex ? 0 : -1;
      if (row) {
        const hadFocus = row.contains(document.activeElement);
        row.replaceWith(fresh);
        if (hadFocus) fresh.focus({ preventScroll: true });
      } else {
        this.sizer.append(fresh);
      }
      this.rows.set(index, fresh);
    }
  }

  /** Moves the focus to row `index`, scrolling it into view and loading it first when needed. */
  async focus(index) {
    if (!this.total) return;
    index = Math.max(0, Math.min(this.total - 1, index));
    this.focusIndex = index;
    const top = index * this.rowHeight;
    const view = this.container.clientHeight;
    if (top < this.container.scrollTop) this.container.scrollTop = top;
    else if (top + this.rowHeight > this.container.scrollTop + view) {
      this.container.scrollTop = top + this.rowHeight - view;
    }
    await this.items.load(this.items.pageOf(index));
    this.render(false);
    for (const [i, row] of this.rows) row.tabIndex = i === index ? 0 : -1;
    const row = this.rows.get(index);
    if (row) row.focus({ preventScroll: true });
  }

  activate() {
    const item = this.itemAt(this.focusIndex);
    if (item !== undefined && this.onActivate) this.onActivate(item, this.focusIndex);
  }

  key(event) {
    if (event.target.closest('input, select, textarea')) return;
    if (this.onKey && this.onKey(event, this.itemAt(this.focusIndex), this.focusIndex)) {
      event.preventDefault();
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const perPage = Math.max(1, Math.floor(this.container.clientHeight / this.rowHeight) - 1);
    const moves = {
      ArrowDown: 1, ArrowUp: -1, PageDown: perPage, PageUp: -perPage,
      Home: -Infinity, End: Infinity,
    };
    if (event.key in moves) {
      event.preventDefault();
      const move = moves[event.key];
      const target = move === -Infinity ? 0 : move === Infinity ? (this.total || 1) - 1 : this.focusIndex + move;
      this.focus(target);
    } else if (event.key === 'Enter' && !event.target.closest('button')) {
      event.preventDefault();
      this.activate();
    }
  }
}
