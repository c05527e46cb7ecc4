/** Entries per chunk of a `ChunkedMap` (the chunk being written stays small enough to be cache-friendly). */
const CHUNK_SIZE = 1024

/**
 * A string-keyed map for keys that mostly arrive in increasing order (time-ordered ids, and keys derived
 * from them), split into chunks of consecutive key ranges. One large `Map` costs several hundred ns per
 * insert once it holds a few hundred thousand entries (every insert misses the cache in a large table that
 * keeps being rehashed and lives in the old generation); here inserts go to the small newest chunk. A key
 * belongs to the last chunk whose first key is at or before it (the first chunk for smaller keys), so a
 * lookup is a binary search over the chunks' first keys and one small `Map` lookup. Any key order is
 * correct; a new chunk is started only by a key above every key so far, so chunk ranges never overlap.
 */
export class ChunkedMap<V> {
  private readonly chunkSize: number
  private readonly chunks: Array<Map<string, V>> = [new Map()]
  /** The first key of each chunk (the first chunk's is unused: smaller keys go there too). */
  private readonly firsts: Array<string> = [""]
  /** The largest key ever set (new chunks start above it). */
  private max: string | undefined = undefined

  constructor(chunkSize: number = CHUNK_SIZE) {
    this.chunkSize = chunkSize
  }

  private chunkOf(key: string): Map<string, V> {
    const firsts = this.firsts
    const n = firsts.length
    // Usually the newest chunk.
    if (n === 1 || firsts[n - 1]! <= key) return this.chunks[n - 1]!
    let lo = 1
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (firsts[mid]! <= key) lo = mid + 1
      else hi = mid
    }
    // lo: the first chunk whose first key is above `key`.
    return this.chunks[lo - 1]!
  }

  get(key: string): V | undefined {
    return this.chunkOf(key).get(key)
  }

  has(key: string): boolean {
    return this.chunkOf(key).has(key)
  }

  set(key: string, value: V): void {
    if (this.max === undefined || key > this.max) {
      const last = this.chunks[this.chunks.length - 1]!
      if (last.size >= this.chunkSize) {
        const chunk = new Map<string, V>([[key, value]])
        this.chunks.push(chunk)
        this.firsts.push(key)
        this.max = key
        return
      }
      this.max = key
    }
    this.chunkOf(key).set(key, value)
  }

  delete(key: string): boolean {
    return this.chunkOf(key).delete(key)
  }
}
