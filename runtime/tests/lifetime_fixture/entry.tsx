// The worker entry of the process-lifetime tests: a tool and two event routes that busy-loop, so
// the worker never runs its event loop again and only its parent can end it.
import { startWorker, WORKER_PROTOCOL } from '@agent-bundle/runtime/worker';

startWorker({
  protocol: WORKER_PROTOCOL,
  artifact: 'lifetime-test-digest',
  routes: {
    'tool:demo/spin': () => import('./spin.tsx'),
    'tool:demo/spin_briefly': () => import('./spin.tsx'),
    'event:session/start': () => import('./spin_event.tsx'),
    'event:prompt/submit': () => import('./spin_event.tsx'),
  },
});
