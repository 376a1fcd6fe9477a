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

// The forms seeds 000 and 002 write.
export function SeedForms() {
  return (
    <Agent.Result metadata={{ route: 'tool:library/audit' }}>
      <Suspense fallback={<Agent.Progress message="Inspecting files" />}>
        <Agent.Resource uri="audiobooks://catalog" name="Catalog" />
      </Suspense>
      <Agent.Error code="E_NOT_FOUND">{`No entry is named ${'x'}.`}</Agent.Error>
    </Agent.Result>
  );
}

export function Bad() {
  // @ts-expect-error Progress needs `completed` or a `message`
  const a = <Agent.Progress total={3} />;
  // @ts-expect-error Deny needs `reason`
  const b = <Agent.Deny />;
  // @ts-expect-error Error needs a `message` or text children
  const c = <Agent.Error code="e" />;
  // @ts-expect-error not both a `message` and children
  const d = <Agent.Error code="e" message="m">text</Agent.Error>;
  // @ts-expect-error metadata is an object
  const e = <Agent.Result metadata="m" />;
  return [a, b, c, d, e];
}
