// A grid of any length (posters) that keeps only the rows in view, and one row either side, in the
// DOM. The number of columns follows the width; data comes in pages from `fetchPage(offset, limit)`,
// kept in a small cache. Arrow keys move by one cell or one row, PageUp/PageDown by a screen, Home
// and End to the ends; the cells are links, so Enter (or a click) opens them.

import { PagedItems, frameScheduler } from './paged.js';

export class VirtualGrid {
  constructor(container, { cellWidth, rowHeight, pageSize = 120, fetchPage, renderCell, onTotal }) {
    this.container = container;
    this.cellWidth = cellWidth;
    this.rowHeight = rowHeight;
    this.renderCell = renderCell;
    this.items = new PagedItems({
      pageSize, keep: 4, fetchPage,
      onPage: (total) => {
        this.layout();
        // Only pages of the current query get here (PagedItems drops stale ones), so the
        // total said beside the list is always the one it shows.
        if (onTotal) onTotal(total);
        this.render(true);
      },
    });
    this.schedule = frameScheduler(() => this.render(false));
    this.cells = new Map(); // index -> element
    this.focusIndex = 0;
    this.columns = 1;
    this.sizer = document.createElement('div');
    this.sizer.className = 'vgrid-sizer';
    container.append(this.sizer);
    container.addEventListener('scroll', () => this.schedule(), { passive: true });
    window.addEventListener('resize', () => {
      this.layout();
      this.render(true);
    });
    container.addEventListener('keydown', (event) => this.key(event));
    container.addEventListener('focusin', (event) => {
      const cell = event.target.closest('[data-index]');
      if (cell) this.focusIndex = Number(cell.dataset.index);
    });
    container.tabIndex = 0;
    container.addEventListener('focus', () => {
      if (this.total) this.focus(this.focusIndex);
    });
  }

  get total() {
    return this.items.total;
  }

  /** Forgets everything and loads from the first cell. */
  reset() {
    this.items.clear({ total: true });
    this.focusIndex = 0;
    this.container.scrollTop = 0;
    for (const cell of this.cells.values()) cell.remove();
    this.cells.clear();
    return this.items.load(0);
  }

  itemAt(index) {
    return this.items.itemAt(index);
  }

  layout() {
    const width = this.container.clientWidth || this.cellWidth;
    this.columns = Math.max(1, Math.floor(width / this.cellWidth));
    this.width = width / this.columns;
    if (this.total !== null) this.sizer.style.height = `${Math.ceil(this.total / this.columns) * this.rowHeight}px`;
  }

  /** Draws the rows in view (and one either side), asking for the pages they need; `force` places
   * the cells again (after the columns changed). */
  render(force) {
    if (this.total === null) return;
    const top = this.container.scrollTop;
    const height = this.container.clientHeight || 600;
    const firstRow = Math.max(0, Math.floor(top / this.rowHeight) - 1);
    const lastRow = Math.ceil((top + height) / this.rowHeight) + 1;
    const first = firstRow * this.columns;
    const last = Math.min(this.total - 1, (lastRow + 1) * this.columns - 1);
    for (const [index, cell] of this.cells) {
      // Keep the focused cell while it has the focus: the browser would otherwise drop it.
      if ((index < first || index > last) && !cell.contains(document.activeElement)) {
        cell.remove();
        this.cells.delete(index);
      } else if (force) {
        this.place(cell, index);
      }
    }
    for (let index = first; index <= last; index++) {
      const item = this.itemAt(index);
      if (item === undefined) {
        this.items.load(this.items.pageOf(index));
        continue;
      }
      let cell = this.cells.get(index);
      if (cell) {
        this.place(cell, index);
        continue;
      }
      cell = this.renderCell(item, index);
      cell.dataset.index = String(index);
      cell.classList.add('vcell');
      cell.tabIndex = index === this.focusIndex ? 0 : -1;
      this.place(cell, index);
      this.sizer.append(cell);
      this.cells.set(index, cell);
    }
  }

  place(cell, index) {
    const row = Math.floor(index / this.columns);
    const column = index % this.columns;
    cell.style.top = `${row * this.rowHeight}px`;
    cell.style.left = `${column * this.width}px`;
    cell.style.width = `${this.width}px`;
    cell.style.height = `${this.rowHeight}px`;
  }

  /** Moves the focus to cell `index`, scrolling it into view and loading it first when needed. */
  async focus(index) {
    if (!this.total) return;
    index = Math.max(0, Math.min(this.total - 1, index));
    this.focusIndex = index;
    const top = Math.floor(index / this.columns) * this.rowHeight;
    const view = this.container.clientHeight;
    if (top < this.container.scrollTop) this.container.scrollTop = top;
    else if (top + this.rowHeight > this.container.scrollTop + view) {
      this.container.scrollTop = top + this.rowHeight - view;
    }
    await this.items.load(this.items.pageOf(index));
    this.render(false);
    for (const [i, cell] of this.cells) cell.tabIndex = i === index ? 0 : -1;
    const cell = this.cells.get(index);
    if (cell) cell.focus({ preventScroll: true });
  }

  key(event) {
    if (event.target.closest('input, select, textarea')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const perScreen = Math.max(1, Math.floor(this.container.clientHeight / this.rowHeight)) * this.columns;
    const moves = {
      ArrowRight: 1, ArrowLeft: -1, ArrowDown: this.columns, ArrowUp: -this.columns,
      PageDown: perScreen, PageUp: -perScreen, Home: -Infinity, End: Infinity,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const move = moves[event.key];
    const target = move === -Infinity ? 0 : move === Infinity ? (this.total || 1) - 1 : this.focusIndex + move;
    this.focus(target);
  }
}
