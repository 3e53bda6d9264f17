export {
  type BackendChoice,
  selectBackend,
  TFJS_BACKENDS,
  type Tf,
  type TfjsBackendName,
} from './select-backend.js';
