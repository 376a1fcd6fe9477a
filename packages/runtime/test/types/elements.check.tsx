// Type-level check of the Agent elements (run with `npx tsc -p packages/runtime`).
import { Suspense } from 'react';
import { Agent, agent } from '../../src/index.ts';

export function Good() {
  const title: string = String(agent().input);
  return (
    <Agent.Result value={{ ok: true }}>
      <Agent.Markdown># {title}</Agent.Markdown>
      <Suspense fallback={<Agent.Progress completed={0} message="wait" />}>
        <Agent.Json value={new Map([['a', 1]])} />
      </Suspense>
      <agent-notice>raw tag</agent-notice>
      <Agent.Error code="e" message="m" />
    </Agent.Result>
  );
}

export function Bad() {
  // @ts-expect-error Progress needs `completed`
  const a = <Agent.Progress message="x" />;
  // @ts-expect-error Deny needs `reason`
  const b = <Agent.Deny />;
  return [a, b];
}
