// What a person does with the curator's shelf viewer (createAppClient + useTool, mounted by the
// framework), in whichever host `frame` is the App of: the opening `show_shelf` result renders,
// then the "finished" button's typed call round trip renders the new shelf. Shared by
// curator.mjs (behind ext-apps' AppBridge) and curator-in-web-host.mjs (behind `abgen-host web`).
import assert from 'node:assert/strict';

const shelf = (frame) =>
  frame.evaluate(() => ({
    heading: document.querySelector('h2').textContent,
    rows: document.querySelectorAll('tbody tr').length,
  }));

export async function driveShelfViewer(frame) {
  await frame.waitForSelector('h2', { timeout: 10_000 });
  const opening = await shelf(frame);
  assert.match(opening.heading, /^reading \(\d+\)$/);
  await frame.click('button:text-is("finished")');
  await frame.waitForFunction(() => document.querySelector('h2')?.textContent.startsWith('finished'), undefined, { timeout: 10_000 });
  const called = await shelf(frame);
  assert.match(called.heading, /^finished \(\d+\)$/);
  return { opening, called };
}
