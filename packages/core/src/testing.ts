// @dtask/core/testing: conformance kits and fakes that plugin packages run against their own
// implementations. Runner-agnostic: pass your test runner's describe/it.

export {
  type FakeCompatibility,
  FakeProcessor,
  type FakeProcessorOptions,
  fakeProcessorPlugin,
} from './testing/fake-processor.js';
export {
  type DeviceValues,
  type LocalStoreConformanceOptions,
  localStoreConformance,
} from './testing/local-store-conformance.js';
export { type ProcessorUnderTest, processorConformance } from './testing/processor-conformance.js';
export { type ProbeOp, processorProbe } from './testing/processor-probe.js';
export { type RandomDagsSetup, randomDags } from './testing/random-dags.js';
export {
  type ConformanceRunner,
  type StorageConformanceOptions,
  storageDeviceConformance,
} from './testing/storage-conformance.js';
export { type StorageSample, storageSamples } from './testing/storage-samples.js';
export { type StreamingSetup, streamingConformance } from './testing/streaming-conformance.js';
export type {
  ConformanceSharing,
  SharingRunner,
  SuiteSetup,
} from './testing/suite-setup.js';
export { type MakeTransportPair, transportConformance } from './testing/transport-conformance.js';
export {
  type WorkerHostUnderTest,
  workerHostConformance,
} from './testing/worker-host-conformance.js';
