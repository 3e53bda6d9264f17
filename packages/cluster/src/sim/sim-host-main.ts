// A simulated-cluster host: one process running many simulated members (`sim-member.ts`), each
// with its own links to the scheduler. Started by `simulatedCluster` with its settings as JSON
// in argv[2] and the secret on its standard input (never in its command line or environment);
// ends once every member's links have closed.
import { joinSimMember, type SimMember } from './sim-member.js';

interface HostSettings {
  connect: string;
  members: number;
  /** Members joining at once. */
  joining: number;
  maxFrameBytes: number;
  handshakeTimeoutMs: number;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as HostSettings;
/** The first line of standard input. */
async function readSecret(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0]!.trim();
}

async function main(): Promise<void> {
  const secret = await readSecret();
  const joined: SimMember[] = [];
  let next = 0;
  const joinSome = async (): Promise<void> => {
    while (next < settings.members) {
      const index = next++;
      joined.push(
        await joinSimMember({
          connect: settings.connect,
          secret,
          index,
          maxFrameBytes: settings.maxFrameBytes,
          handshakeTimeoutMs: settings.handshakeTimeoutMs,
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, settings.joining) }, joinSome));
  await Promise.all(joined.map((m) => m.closed));
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`dtask simulated host ${process.pid}: ${error?.stack ?? error}\n`);
  process.exit(1);
});
