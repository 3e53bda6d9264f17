import { defineConfig } from 'tsup';
import { program } from '../../tsup.base.js';

// The demo is a program run by node: ESM only.
export default defineConfig({ ...program(['src/main.ts']), clean: true });
