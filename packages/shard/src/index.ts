// @dtask/shard: one piece of mutable state per worker, thread or processor (Dagger's shard).

export { reduceShard } from './reduce-shard.js';
export { Shard, type ShardOptions, shard } from './shard.js';
export type { ShardPlaces } from './shard-places.js';
