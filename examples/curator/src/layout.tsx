import type { ReactNode } from 'react';

/**
 * The root layout: every rendered MCP route (tools, resources, prompts), the `src/cli` command
 * and the rendered script render inside it; event routes are host protocol answers and are not
 * wrapped. The curator adds nothing around its
 * documents; this is where shared framing (a heading, a trailing note, `metadata` for `_meta`)
 * would go.
 */
export default function CuratorLayout({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
