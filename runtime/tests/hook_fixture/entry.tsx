// The worker entry of the hook and render tests: event routes that answer with each kind of hook
// content (and with content a hook cannot carry), one that never answers, and a tool.
import { startWorker, WORKER_PROTOCOL } from '@agent-bundle/runtime/worker';

startWorker({
  protocol: WORKER_PROTOCOL,
  artifact: 'hook-test-digest',
  routes: {
    'event:tool/before': () => import('./guard.tsx'),
    'event:stop': () => import('./stop.tsx'),
    'event:session/start': () => import('./json.tsx'),
    'event:prompt/submit': () => import('./hang.tsx'),
    'tool:demo/echo': () => import('./echo.tsx'),
  },
});
