// The plugin's default framework state root (seed 002, the plugin-root environment anchor). The
// worker's plugin axis (src/plugin-root.ts, which imports it) and its code-cache loader
// (code-cache.mjs, which carries these functions' text) both derive it at every cold start.
//
// The digest is computed here, not by `node:crypto`: loading that module for one 16-character
// digest of a short path (and for React's own bare `require("crypto")`, which the worker bundle
// drops) cost every cold start 1–2 ms (0.8 and 2.1 ms on medians, 41 and 61 interleaved rounds).

import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';

/**
 * `$XDG_STATE_HOME/agent-bundle/<name>-<digest16>`, else `~/.agent-bundle/state/<name>-<digest16>`,
 * where `<name>` is the code root's basename with everything outside `[A-Za-z0-9._-]` replaced
 * (never empty or a dot name) and `<digest16>` the first 16 hexadecimal characters of the SHA-256
 * of its real path (of `root` as written when it does not exist).
 * @param {string} root an absolute code root
 * @param {Record<string, string | undefined>} env
 * @returns {string}
 */
export function defaultStateRoot(root, env) {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // A root that does not exist (yet) is hashed as written.
  }
  const safeName = basename(real).replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '') || 'plugin';
  const name = `${safeName}-${sha256Hex(real).slice(0, 16)}`;
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'agent-bundle', name);
  return join(env.HOME || homedir(), '.agent-bundle', 'state', name);
}

/**
 * The SHA-256 (FIPS 180-4) of `text`'s UTF-8 bytes, in lowercase hexadecimal.
 * @param {string} text
 * @returns {string}
 */
export function sha256Hex(text) {
  // The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
  const k = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ];
  // The first 32 bits of the fractional parts of the square roots of the first 8 primes.
  const hash = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const bytes = new TextEncoder().encode(text);
  // The message, a 1 bit, zeros, and its length in bits as a big-endian 64-bit number, in 64-byte blocks.
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 0x20000000));
  view.setUint32(padded.length - 4, (bytes.length * 8) >>> 0);
  const rotate = (x, n) => (x >>> n) | (x << (32 - n));
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, h] = hash;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i]) | 0;
      const t2 = ((rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    [a, b, c, d, e, f, g, h].forEach((value, i) => {
      hash[i] = (hash[i] + value) | 0;
    });
  }
  return hash.map((value) => (value >>> 0).toString(16).padStart(8, '0')).join('');
}
