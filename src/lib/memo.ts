// A bounded memo for pure functions of one string or number that hot paths call once per user
// per answer (a /register for 10,000 users formats 10,000 avatar hashes and join dates).

/**
 * fn's results remembered by argument; when `max` arguments are held, the whole memo is dropped
 * and refilled (simpler than an LRU, and the working set of a server is its users).
 */
export function memoize<K extends string | number, V>(fn: (key: K) => V, max = 100_000): (key: K) => V {
  const held = new Map<K, V>();
  return (key: K): V => {
    const hit = held.get(key);
    if (hit !== undefined) return hit;
    const value = fn(key);
    if (held.size >= max) held.clear();
    held.set(key, value);
    return value;
  };
}
