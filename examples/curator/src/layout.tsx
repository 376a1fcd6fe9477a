import type { ReactNode } from 'react';

/**
 * The root layout: every rendered route (tools, resources, prompts and event routes) renders
 * inside it. The curator adds nothing around its documents, since hook answers may only carry
 * context, notices and denials; this is where shared framing would go.
 */
export default function CuratorLayout({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
