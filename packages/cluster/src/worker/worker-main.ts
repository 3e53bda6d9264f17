// The program of a local worker process started by `cluster()`: it reads where to connect from
// its environment and the secret from its standard input (neither its command line, which
// other users can see, nor its environment, kept in `/proc/<pid>/environ`), and joins.
import { ClusterError } from '../cluster-error.js';
import { runWorker } from './run-worker.js';

const { DTASK_CONNECT, DTASK_WORKER, DTASK_THREADS } = process.env;
const DTASK_SECRET = await readStdin();
if (!DTASK_CONNECT || !DTASK_SECRET || !DTASK_WORKER) {
  throw new ClusterError(
    'start',
    'worker-main is started by cluster(); use dtask-worker to join by hand',
  );
}
runWorker({
  connect: DTASK_CONNECT,
  secret: DTASK_SECRET,
  worker: Number(DTASK_WORKER),
  threads: Number(DTASK_THREADS ?? 0),
}).catch((error: unknown) => {
  process.stderr.write(`dtask worker ${DTASK_WORKER}: ${error}\n`);
  process.exit(1);
});

/** Everything written to standard input until it closes, trimmed. */
async function readStdin(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}
