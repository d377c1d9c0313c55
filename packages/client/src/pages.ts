/** What every list of the API answers: a page of items and where the next one starts. */
export interface Page<T> {
  data: T[];
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null; total?: number };
  requestId: string;
}

/**
 * A listing walked page by page, following `nextCursor` until `hasMore` is false.
 * `for await (const item of list)` yields the items; `list.pages()` yields whole pages (with
 * `pagination.total`). Nothing is fetched until iteration starts, and each iteration starts over.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.pagination.hasMore ? (page.pagination.nextCursor ?? undefined) : undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item, in one array: for listings known to be small. */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
