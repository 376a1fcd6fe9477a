/**
 * The `catalog` provider: routes call `provider('catalog')` (on their context, or through
 * `agent()`) and get the catalog client.
 *
 * The worker resolves a provider once per request. The client itself is kept at module level,
 * so it lives as long as the render worker does and a book shelved in one call stays shelved
 * in the next.
 */

import { BOOKS } from '../data/catalog';
import { CatalogClient } from '../data/catalog-client';

let client: CatalogClient | undefined;

export default function catalog(): CatalogClient {
  client ??= new CatalogClient(BOOKS);
  return client;
}
