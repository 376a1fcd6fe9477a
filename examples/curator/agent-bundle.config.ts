import { defineConfig } from 'agent-bundle/config';

export default defineConfig({
  plugin: {
    name: 'curator',
    description:
      'A library-curation assistant: search your catalog, shelve books, audit the collection and export citations.',
    author: { name: 'abgen contributors' },
    license: 'MIT',
    keywords: ['books', 'library', 'reading-list', 'bibliography'],
    homepage: 'https://example.com/curator',
  },
  targets: ['claude', 'codex', 'cursor'],
  // Every tool is also a command of the plugin's own executable: `bin/curator library search_books`.
  routes: { mcpCommands: true },
});
