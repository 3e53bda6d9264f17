// A CommonJS module for everywhere(): its exports travel by reference and may use what it
// requires and its own state.
const { basename } = require('node:path');
const { taskProcessor } = require('@dtask/core');

let calls = 0;

function cjsCount() {
  calls += 1;
  return calls;
}

function cjsBasename(p) {
  return basename(p);
}

function cjsWhere() {
  return taskProcessor().id;
}

module.exports = { cjsCount, cjsBasename, cjsWhere };
