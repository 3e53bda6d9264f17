// Keeps docs/architecture.md true: every package and every source folder must be named in it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const doc = readFileSync('docs/architecture.md', 'utf8');
const missing = [];
for (const group of ['packages', 'apps']) {
  for (const pkg of readdirSync(group)) {
    const src = join(group, pkg, 'src');
    if (!doc.includes(`${group}/${pkg}`)) missing.push(`${group}/${pkg}`);
    let entries = [];
    try {
      entries = readdirSync(src);
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (statSync(join(src, entry)).isDirectory() && !doc.includes(`${entry}/`)) {
        missing.push(`${src}/${entry}/`);
      }
    }
  }
}
if (missing.length > 0) {
  console.error(`docs/architecture.md does not describe: ${missing.join(', ')}`);
  process.exit(1);
}
console.log('docs/architecture.md covers every package and source folder');
