// One extra thread of a worker process (`cluster({ threads })`, `dtask-worker --threads`): it
// joins the scheduler as thread `thread` of its process, with a link of its own, and serves
// tasks until that link closes.
import { workerData } from 'node:worker_threads';
import { joinMember } from './join-member.js';
import type { ThreadData } from './run-worker.js';

const data = workerData as ThreadData;
// A failure to join is left unhandled: it ends this thread with an error, and the process.
joinMember(data).then((member) => member.link.onClose(() => process.exit(0)));
