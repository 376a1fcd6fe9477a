import type { ToolCliConfig } from 'agent-bundle/routes';

/**
 * How `search_books` appears on the plugin's own command line besides `library search_books`:
 * `curator find --query 'le guin'`. The flags are the tool's input schema; the render is the tool's.
 */
export const config = {
  command: 'find',
  description: 'Find books in the catalog by title, author or topic',
} satisfies ToolCliConfig;
