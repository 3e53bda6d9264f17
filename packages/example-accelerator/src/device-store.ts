import { DeviceValueStore } from '@dtask/core/worker';
import { DeviceArray } from './device-array.js';
import type { DeviceMemory } from './device-memory.js';

/**
 * The results an accelerator keeps, by key (core's `DeviceValueStore`, a `LocalStore`): a
 * `DeviceArray` result stays in device memory until the scheduler lets it go, then its bytes go
 * back to the device at once (`DeviceMemory.letGo`: after the running tasks using it end) rather
 * than when the garbage collector gets to it. One array held under several keys (a task returned
 * its input) is let go with the last of them.
 */
export class DeviceStore extends DeviceValueStore<DeviceArray> {
  constructor(memory: DeviceMemory) {
    super({
      isDeviceValue: (value) => value instanceof DeviceArray,
      onLastRelease: (array) => memory.letGo(array),
    });
  }
}
