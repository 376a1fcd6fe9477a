// Type tests of `agent-bundle/app` against an augmented AppRegister, as the generated
// `.agent-bundle/routes.d.ts` writes it: checked by `npm run typecheck` (tsc), never run.
import { createAppClient } from '../../src/app/index.ts';
import type { AppRouteResult } from '../../src/app/index.ts';

declare module '../../src/app/index.ts' {
  interface AppRegister {
    readonly routes: {
      readonly 'tool:library/show_shelf': {
        readonly input: { shelf: 'reading' | 'finished' };
        readonly result: { shelf: string; books: readonly { id: string }[] };
      };
    };
  }
}

declare const window: Parameters<typeof createAppClient>[0]['window'] & object;
const client = createAppClient({ appInfo: { name: 'shelf', version: '1' }, window });

export async function typed(): Promise<string> {
  const shelf = await client.call('tool:library/show_shelf', { shelf: 'reading' });
  const first: string | undefined = shelf.books[0]?.id;
  // @ts-expect-error an unknown route id does not compile
  await client.call('tool:library/nothing', {});
  // @ts-expect-error a wrong input does not compile
  await client.call('tool:library/show_shelf', { shelf: 'lost' });
  client.onToolInput('tool:library/show_shelf', (input) => {
    const value: 'reading' | 'finished' = input.shelf;
    void value;
  });
  const result: AppRouteResult<'tool:library/show_shelf'> = shelf;
  return first ?? result.shelf;
}
