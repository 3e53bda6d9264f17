// TLS on TCP links: a scheduler started with
// cluster({ listen, secret, tls }) accepts `dtask-worker --tls-*` workers over TLS, their peer
// links use TLS too, and a worker that does not speak TLS is refused. The certificate is made
// for the test by openssl (skipped, saying why, where openssl is missing).
import { spawn as spawnProcess, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { ArgumentError, scope } from '@dtask/core';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterRig, eventually, until } from './__fixtures__/rig.js';
import { cluster } from './index.js';

const bin = fileURLToPath(new URL('../dist/bin/dtask-worker.js', import.meta.url));
const SECRET = 'tls-test-secret-0123456789abcdef';

/** A self-signed certificate for 127.0.0.1 (its own authority), or why none could be made. */
function makeCertificate(): { dir: string; cert: string; key: string } | string {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-tls-'));
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  if (made.error || made.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `openssl could not make a certificate (${made.error?.message ?? made.stderr}); install openssl`;
  }
  return {
    dir,
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
  };
}

const made = makeCertificate();
if (typeof made === 'string') console.warn(`cluster TLS tests skipped: ${made}`);

describe.skipIf(typeof made === 'string')('cluster: TLS on TCP links', () => {
  const { dir, cert, key } = made as Exclude<typeof made, string>;
  const tlsFlags = ['--tls-cert', 'cert.pem', '--tls-key', 'key.pem', '--tls-ca', 'cert.pem'].map(
    (f) => (f.endsWith('.pem') ? join(dir, f) : f),
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('workers join over TLS, results move between them over TLS, and a plain worker is refused', async () => {
    await using r = await clusterRig({
      workers: 0,
      listen: '127.0.0.1:0',
      secret: SECRET,
      tls: { cert, key },
    });
    const address = r.plugin.address()!;
    const start = (flags: string[]) =>
      spawnProcess(process.execPath, [bin, '--connect', address, ...flags], {
        env: { ...process.env, DTASK_SECRET: SECRET },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    const workers = [start(tlsFlags), start(tlsFlags)];
    try {
      await until(
        () => r.plugin.processWorkers().filter((w) => w.wasReady).length === 2,
        20_000,
        'two TLS workers to join',
      );
      const [a, b] = r.plugin.processWorkers();
      for (const w of [a, b]) expect((w.link!.socket as TLSSocket).encrypted).toBe(true);
      const made = r.ctx.spawn(
        { scope: scope({ worker: a.worker }) },
        (n) => new Float64Array(n).fill(2),
        1 << 19,
      );
      const sum = r.ctx.spawn(
        { scope: scope({ worker: b.worker }) },
        (x) => x.reduce((s, v) => s + v, 0),
        made,
      );
      expect(await sum).toBe(2 * (1 << 19));

      // A connection that does not speak TLS (as a worker without --tls-* flags) is closed.
      const [host, port] = address.split(':');
      const plain = connect(Number(port), host, () => plain.write('not TLS\r\n'));
      plain.on('error', () => {});
      // Closed by the scheduler (the event, however late a loaded machine delivers it), for the
      // failed handshake, which it reports (not by an idle or handshake timeout).
      await new Promise((res) => plain.once('close', res));
      expect(r.plugin.processWorkers()).toHaveLength(2);
      await eventually(() =>
        r.plugin
          .violations()
          .some((v) => /TLS handshake failed: (?!.*timed? ?out)/i.test(v.message)),
      );
    } finally {
      for (const w of workers) w.kill('SIGKILL');
    }
  });

  it('tls needs listen, and PEM text', () => {
    expect(() => cluster({ tls: { cert, key } })).toThrow(/TLS protects the TCP address/);
    expect(() =>
      cluster({ listen: '127.0.0.1:0', secret: SECRET, tls: { cert: 'nope', key } }),
    ).toThrow(ArgumentError);
    expect(() =>
      cluster({ listen: '127.0.0.1:0', secret: SECRET, tls: { cert, key, pass: 'x' } as never }),
    ).toThrow(/unknown field 'pass'/);
  });
});
