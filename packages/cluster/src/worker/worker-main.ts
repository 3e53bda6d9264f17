// The program of a local worker process started by `cluster()`: it reads where to connect and
// the secret from its environment (not its command line, which other users can see), forgets
// the secret, and joins.
import { ClusterError } from '../cluster-error.js';
import { runWorker } from './run-worker.js';

const { DTASK_CONNECT, DTASK_SECRET, DTASK_WORKER, DTASK_THREADS } = process.env;
delete process.env.DTASK_SECRET;
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
