#!/usr/bin/env node
// The `dtask-worker` command. A committed file, so the package manager can link the command
// before the build has written dist/.
import '../dist/bin/dtask-worker.js';
