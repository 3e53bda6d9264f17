import { DeviceValueStore } from '@dtask/core/worker';
import type { DeviceStats } from './device-stats.js';
import type { KernelRuntime } from './kernel-runtime.js';
import type { GpujsTexture } from './select-mode.js';

/**
 * The results a GpujsProc keeps, by key (core's `DeviceValueStore`, a `LocalStore`): textures
 * stay on the device (its memory space), counted in `stats`, until no entry holds them, then are
 * deleted; other values are kept as they are.
 */
export class TextureStore extends DeviceValueStore<GpujsTexture> {
  constructor(runtime: KernelRuntime, stats: DeviceStats) {
    super({
      isDeviceValue: (value) => runtime.isTexture(value),
      onFirstHold: (texture) => {
        stats.add('textures');
        stats.add('bytesOnDevice', runtime.bytesOf(texture)!);
      },
      onLastRelease: (texture) => {
        stats.add('textures', -1);
        stats.add('bytesOnDevice', -runtime.bytesOf(texture)!);
        texture.delete();
      },
    });
  }
}
