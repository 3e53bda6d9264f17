import { describe, it } from 'vitest';
import { transportConformance } from '../testing/transport-conformance.js';
import { inMemoryTransportPair } from './in-memory-transport.js';

transportConformance('inMemoryTransportPair', () => ({ ends: inMemoryTransportPair() }), {
  describe,
  it,
});
