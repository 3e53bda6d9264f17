import { defineConfig } from 'tsup';
import { library } from '../../tsup.base.js';

export default defineConfig(library(['src/index.ts'], ['@dtask/core']));
