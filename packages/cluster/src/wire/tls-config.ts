import { ArgumentError } from '@dtask/core';
import { checkOptions, describeValue } from '@dtask/core/plugin';

/**
 * TLS for links over TCP: this side's certificate and key (PEM), and the certificate authority
 * (PEM) the other side's certificate must chain to. Unix sockets never use it (they stay in a
 * private folder on this machine). TLS keeps the traffic private and proves the scheduler's and
 * peers' identity; the shared secret still proves every connection's right to join.
 */
export interface TlsConfig {
  cert: string;
  key: string;
  /** Default: Node's bundled roots (a certificate from a public authority). */
  ca?: string;
}

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

/**
 * Checks a `tls` option (PEM text or Buffers) and returns it as strings.
 * @throws ArgumentError naming the field that is missing or not PEM.
 */
export function tlsConfig(value: unknown, what: string): TlsConfig {
  checkOptions(value, {
    known: ['cert', 'key', 'ca'],
    notObject: (v) =>
      `${what}: must be { cert, key, ca? } with PEM text (e.g. readFileSync('cert.pem')); got ${describeValue(v)}`,
    unknownKey: (key, known) => `${what}: unknown field '${key}'; known: ${known.join(', ')}`,
  });
  const v = value as Record<string, unknown>;
  const pem = (field: string, required: boolean): string | undefined => {
    const x = v[field];
    if (x === undefined && !required) return undefined;
    const text = Buffer.isBuffer(x) ? x.toString('utf8') : x;
    if (typeof text !== 'string' || !PEM.test(text)) {
      throw new ArgumentError(
        `${what}.${field}: must be PEM text (a string or Buffer starting with -----BEGIN …); got ${describeValue(x)}`,
      );
    }
    return text;
  };
  return { cert: pem('cert', true)!, key: pem('key', true)!, ca: pem('ca', false) };
}
