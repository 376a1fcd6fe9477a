// The worker entry of the guard tests: a tool/before guard that reads the whole input, and routes
// that hang, throw, or take their worker down, each bound with `failure: 'closed'`.
import { startWorker, WORKER_PROTOCOL } from '@agent-bundle/runtime/worker';

startWorker({
  protocol: WORKER_PROTOCOL,
  artifact: 'guard-test-digest',
  routes: {
    'event:tool/before': () => import('./strict-guard.tsx'),
    'event:prompt/submit': () => import('./hang.tsx'),
    'event:stop': () => import('./throws.tsx'),
    'event:compact/before': () => import('./crash.tsx'),
  },
});
