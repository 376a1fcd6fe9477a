import { Agent, agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { Suspense } from 'react';
import { z } from 'zod';
import type { AuditCheck, AuditFinding, CatalogClient } from '../../../data/catalog-client';
import { bulletList, plural } from '../../../lib/markdown';

const checkSchema = z.enum(['unshelved', 'unrated', 'duplicates', 'stalled']);

const CHECK_TITLES: Record<AuditCheck, string> = {
  unshelved: 'Unshelved books',
  unrated: 'Finished but unrated',
  duplicates: 'Possible duplicates',
  stalled: 'Stalled reads',
};

/**
 * Audits the whole catalog. The heading goes out at once; the findings stream in behind a
 * Suspense boundary whose fallback is a progress node, and every finished check reports
 * progress, so a client that asked for progress notifications sees the audit advance.
 *
 * Because the findings arrive after the result's root has been sent, they travel as a JSON block
 * next to the Markdown rather than as the result value: the result schema is `z.undefined()`.
 */
export default defineTool(
  {
    title: 'Audit the catalog',
    description:
      'Check the whole catalog for books that need attention: unshelved books, finished books without a rating, possible duplicates and reads that have stalled. Read-only; reports progress while it runs.',
    inputSchema: z.object({
      checks: z
        .array(checkSchema)
        .min(1)
        .max(4)
        .default(['unshelved', 'unrated', 'duplicates', 'stalled'])
        .describe('Which checks to run (all by default)'),
      stalledAfterDays: z
        .int()
        .min(7)
        .max(365)
        .default(60)
        .describe('A book on the reading shelf longer than this counts as stalled'),
    }),
    resultSchema: z.undefined(),
    annotations: { readOnlyHint: true, openWorldHint: false },
    execution: { taskSupport: 'optional' },
    render: { maxElapsedMs: 30000 },
  },
  ({ checks, stalledAfterDays }) => (
    <Agent.Result>
      <Agent.Markdown>{`# Catalog audit\n\nRunning ${plural(checks.length, 'check')}: ${checks.join(', ')}.`}</Agent.Markdown>
      <Suspense fallback={<Agent.Progress completed={0} total={checks.length} message="Auditing the catalog" />}>
        <AuditFindings checks={checks} stalledAfterDays={stalledAfterDays} />
      </Suspense>
    </Agent.Result>
  ),
);

/** Runs the checks one by one, reporting progress after each, then renders the findings. */
async function AuditFindings({ checks, stalledAfterDays }: { checks: readonly AuditCheck[]; stalledAfterDays: number }) {
  const request = agent();
  const catalog = await request.provider<CatalogClient>('catalog');
  const findings: AuditFinding[] = [];
  for (const [index, check] of checks.entries()) {
    findings.push(...(await catalog.audit(check, { stalledAfterDays })));
    request.progress.report({ completed: index + 1, total: checks.length, message: `${CHECK_TITLES[check]} checked` });
  }

  const sections = checks.map((check) => {
    const lines = findings
      .filter((finding) => finding.check === check)
      .map((finding) => `**${finding.title}** (\`${finding.bookId}\`): ${finding.detail}`);
    return `## ${CHECK_TITLES[check]}\n\n${bulletList(lines, 'Nothing to report.')}`;
  });
  const verdict =
    findings.length === 0
      ? `All ${plural(catalog.size, 'book')} look fine.`
      : `${plural(findings.length, 'finding')} across ${plural(catalog.size, 'book')}.`;
  return (
    <>
      <Agent.Markdown>{`${verdict}\n\n${sections.join('\n\n')}`}</Agent.Markdown>
      <Agent.Json value={{ findings }} />
    </>
  );
}
