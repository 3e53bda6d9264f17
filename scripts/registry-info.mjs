// `npm info <name>[@<version>] --json`, as the release rehearsal's changesets asks it before each
// publish ("is this version on the registry yet?"), answered by one request to the registry
// instead of a whole npm (about 0.6 s of CPU to start; this program about 0.1 s). It reads the
// same registry npm would (`--registry=<url>` or `--@scope:registry=<url>`, as changesets passes
// it) and answers as npm 11 does for the fields changesets reads:
// - the package or version exists: the version's manifest (the `latest` tag's, or the one asked
//   for) with the package's `dist-tags`, `versions` (every published version) and `time`, as JSON
//   on standard output, exit 0;
// - it does not: npm's `{ "error": { "code": "E404", ... } }` as JSON on standard output, its
//   lines on standard error, exit 1 (a bare name with no `latest` tag prints nothing and exits 0,
//   as npm does).
// Any other answer from the registry exits 1 with its status, as npm's errors do.
// `scripts/check-release.mjs` puts it on the PATH of `changeset publish` as `npm info`; every
// other npm command goes to npm itself.
import http from 'node:http';
import https from 'node:https';

const args = process.argv.slice(2);
const spec = args.find((a) => !a.startsWith('-'));
const registryArg = args.find((a) => /^--(@[^:]+:)?registry=/.test(a));
if (!spec || !registryArg) {
  console.error('usage: registry-info.mjs <name>[@<version>] --[@scope:]registry=<url> --json');
  process.exit(2);
}
const registry = registryArg.slice(registryArg.indexOf('=') + 1).replace(/\/?$/, '/');
const at = spec.indexOf('@', 1);
const name = at === -1 ? spec : spec.slice(0, at);
const wanted = at === -1 ? undefined : spec.slice(at + 1);

const url = `${registry}${name.replace('/', '%2f')}`;
/** npm's answer to a package or version it cannot find (`summary`: what the registry said). */
const notFound = (summary) => {
  const detail = `The requested resource '${name}@${wanted ?? '*'}' could not be found or you do not have permission to access it.`;
  console.log(JSON.stringify({ error: { code: 'E404', summary, detail } }, null, 2));
  console.error(`npm error code E404\nnpm error 404 ${summary}\nnpm error 404 ${detail}`);
  process.exit(1);
};
// node:http rather than `fetch`: loading fetch's client (undici) is most of this program's CPU
// (0.27 s against 0.09 s a start), and changesets starts it once per package.
const response = await new Promise((resolveGet, rejectGet) => {
  const client = url.startsWith('https:') ? https : http;
  client
    .get(url, { headers: { accept: 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolveGet({
          status: res.statusCode,
          statusText: res.statusMessage,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', rejectGet);
    })
    .on('error', rejectGet);
});
if (response.status === 404) {
  let body = {};
  try {
    body = JSON.parse(response.text);
  } catch {}
  notFound(`Not Found - GET ${url} - ${body.error ?? 'not found'}`);
}
if (response.status < 200 || response.status > 299) {
  const summary = `${response.status} ${response.statusText} - GET ${url}`;
  console.log(JSON.stringify({ error: { code: `E${response.status}`, summary } }, null, 2));
  console.error(`npm error code E${response.status}\nnpm error ${summary}`);
  process.exit(1);
}
const packument = JSON.parse(response.text);
const tags = packument['dist-tags'] ?? {};
const version = wanted ?? tags.latest;
// npm prints nothing for a bare name whose `latest` tag is missing (changesets then asks again
// with the exact version).
if (version === undefined) process.exit(0);
const manifest = packument.versions?.[version];
if (!manifest) notFound(`No match found for version ${version}`);
console.log(
  JSON.stringify(
    {
      ...manifest,
      'dist-tags': tags,
      versions: Object.keys(packument.versions ?? {}),
      time: packument.time,
    },
    null,
    2,
  ),
);
