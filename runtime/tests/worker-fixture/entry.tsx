// The worker entry of the end-to-end test, as the compiler will generate it for a plugin.
import { startWorker, WORKER_PROTOCOL } from '@agent-bundle/runtime/worker';

startWorker({
  protocol: WORKER_PROTOCOL,
  artifact: 'test-artifact-digest',
  routes: {
    'tool:demo/greet': () => import('./greet.tsx'),
    'tool:demo/hang': () => import('./hang.tsx'),
    'tool:demo/result': () => import('./result.tsx'),
    'tool:demo/abortable': () => import('./abortable.tsx'),
    'tool:demo/crash': () => import('./crash.tsx'),
    'tool:demo/context': () => import('./context.tsx'),
    'tool:demo/seed-forms': () => import('./seed-forms.tsx'),
    'tool:demo/component': () => import('./component.tsx'),
    'tool:demo/spin': () => import('./spin.tsx'),
    'tool:demo/spin-child': () => import('./spin-child.tsx'),
    'tool:demo/pid': () => import('./pid.tsx'),
    'tool:demo/log': () => import('./log.tsx'),
  },
});
