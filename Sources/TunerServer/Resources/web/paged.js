// The pages of a long list, fetched on demand with `fetchPage(offset, limit)` (which answers
// `{ total, items }`) and kept in a small cache: what VirtualList and VirtualGrid share. `clear()`
// starts a new generation, so a page still on its way for an old query never lands in a new one.

export class PagedItems {
  constructor({ pageSize, keep, fetchPage, onPage }) {
    this.pageSize = pageSize;
    this.keep = keep; // pages kept either side of the newest one
    this.fetchPage = fetchPage;
    this.onPage = onPage; // called with the total after each page arrives
    this.total = null;
    this.pages = new Map(); // page number -> items
    this.loading = new Map(); // page number -> promise
    this.generation = 0;
  }

  /** Forgets every page (and, with `total`, the length too). */
  clear({ total = false } = {}) {
    this.generation++;
    this.pages.clear();
    this.loading.clear();
    if (total) this.total = null;
  }

  pageOf(index) {
    return Math.floor(index / this.pageSize);
  }

  itemAt(index) {
    const page = this.pages.get(this.pageOf(index));
    return page ? page[index % this.pageSize] : undefined;
  }

  /** Fetches page `page` unless it is here or on its way. */
  load(page) {
    if (this.pages.has(page)) return Promise.resolve();
    if (this.loading.has(page)) return this.loading.get(page);
    const generation = this.generation;
    const promise = this.fetchPage(page * this.pageSize, this.pageSize)
      .then(({ total, items }) => {
        if (generation !== this.generation) return;
        this.total = total;
        this.pages.set(page, items);
        // Keep the cache small: drop pages far from this one.
        for (const key of this.pages.keys()) if (Math.abs(key - page) > this.keep) this.pages.delete(key);
        this.onPage(total);
      })
      .finally(() => {
        if (generation === this.generation) this.loading.delete(page);
      });
    this.loading.set(page, promise);
    return promise;
  }
}

/** Runs `draw` once on the next animation frame, however often it is asked before then. */
export function frameScheduler(draw) {
  let frame = null;
  return () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = null;
      draw();
    });
  };
}
