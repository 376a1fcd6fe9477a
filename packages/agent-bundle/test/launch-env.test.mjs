import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadEntry } from '../test-support/load-entry.mjs';

const launchEnv = await loadEntry('launch-env');
const roots = [];
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A plugin root holding `files` (name → text). */
function pluginRoot(files) {
  const root = mkdtempSync(join(tmpdir(), 'agent-bundle-launch-env-'));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

describe('agent-bundle/launch-env', () => {
  it('exports the operator layer and nothing else', () => {
    assert.deepEqual(Object.keys(launchEnv).sort(), [
      'OPERATOR_ENV_FILES',
      'OPERATOR_ENV_FILES_ENV',
      'applyOperatorEnv',
      'operatorEnvPluginRoot',
      'parseEnvFile',
      'pluginRootEnvAnchor',
    ]);
    assert.equal(launchEnv.pluginRootEnvAnchor, 'AGENT_BUNDLE_PLUGIN_ROOT');
    assert.equal(launchEnv.OPERATOR_ENV_FILES_ENV, 'AGENT_BUNDLE_ENV_FILES');
  });

  it('reads the dotenv grammar', () => {
    const text = [
      '# a comment',
      'PLAIN=value # trailing comment',
      'export EXPORTED=yes',
      "SINGLE='kept # as $is'",
      'DOUBLE="line\\none \\"quoted\\""',
      'EMPTY=',
      'not a line',
      '1BAD=x',
    ].join('\n');
    assert.deepEqual(launchEnv.parseEnvFile(text), {
      PLAIN: 'value',
      EXPORTED: 'yes',
      SINGLE: 'kept # as $is',
      DOUBLE: 'line\none "quoted"',
      EMPTY: '',
    });
  });

  it('applies the documented precedence: host env, then .env.local, then .env, then manifest defaults', () => {
    const root = pluginRoot({
      '.env': 'FROM_FILE=env\nOVERRIDDEN=env\nDEFAULTED=env\nHOST_SET=env\n',
      '.env.local': 'OVERRIDDEN=local\n',
    });
    const env = { DEFAULTED: 'manifest', HOST_SET: 'operator' };
    const result = launchEnv.applyOperatorEnv({
      pluginRoot: root,
      manifestEnv: { DEFAULTED: 'manifest', HOST_SET: 'manifest' },
      env,
    });
    assert.deepEqual(env, {
      DEFAULTED: 'env', // the manifest default the host passed through yields to the file
      HOST_SET: 'operator', // a value the host set itself wins
      FROM_FILE: 'env',
      OVERRIDDEN: 'local', // .env.local over .env
    });
    assert.deepEqual(result.applied, ['DEFAULTED', 'FROM_FILE', 'OVERRIDDEN']);
    assert.deepEqual(result.files, [join(root, '.env'), join(root, '.env.local')]);
  });

  it('keeps every host variable, manifest defaults included, without manifestEnv', () => {
    const root = pluginRoot({ '.env': 'DEFAULTED=env\n' });
    const env = { DEFAULTED: 'manifest' };
    launchEnv.applyOperatorEnv({ pluginRoot: root, env });
    assert.deepEqual(env, { DEFAULTED: 'manifest' });
  });

  it('reads the files AGENT_BUNDLE_ENV_FILES names instead of the plugin root\'s, then forgets the variable', () => {
    const root = pluginRoot({ '.env': 'FROM_ROOT=root\n' });
    const project = pluginRoot({ 'first.env': 'SHARED=first\nFIRST=1\n', 'second.env': 'SHARED=second\n' });
    const named = [join(project, 'first.env'), join(project, 'missing.env'), join(project, 'second.env')];
    const env = { AGENT_BUNDLE_ENV_FILES: JSON.stringify(named) };
    const result = launchEnv.applyOperatorEnv({ pluginRoot: root, env });
    assert.deepEqual(env, { SHARED: 'second', FIRST: '1' });
    assert.deepEqual(result.files, [named[0], named[2]]);

    const none = { AGENT_BUNDLE_ENV_FILES: '[]' };
    assert.deepEqual(launchEnv.applyOperatorEnv({ pluginRoot: root, env: none }), { files: [], applied: [] });
    assert.deepEqual(none, {});
  });

  it('reads nothing where there is no file', () => {
    const env = {};
    const result = launchEnv.applyOperatorEnv({ pluginRoot: pluginRoot({}), env });
    assert.deepEqual(result, { files: [], applied: [] });
    assert.deepEqual(env, {});
  });

  it('prefers an expanded anchor and treats an unexpanded one as unset', () => {
    assert.equal(launchEnv.operatorEnvPluginRoot('/fallback', { AGENT_BUNDLE_PLUGIN_ROOT: '/installed' }), '/installed');
    assert.equal(launchEnv.operatorEnvPluginRoot('/fallback', {}), '/fallback');
    assert.equal(
      launchEnv.operatorEnvPluginRoot('/fallback', { AGENT_BUNDLE_PLUGIN_ROOT: '${CLAUDE_PLUGIN_ROOT}' }),
      '/fallback',
    );
  });
});
