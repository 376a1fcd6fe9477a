/**
 * Frames of the worker protocol (schemas/worker-protocol.schema.json), both directions.
 *
 * A frame is `u32le total_len` followed by `total_len` bytes: `u32le header_len`, `header_len`
 * bytes of UTF-8 JSON (the message header), and the remaining `total_len - 4 - header_len` bytes
 * of payload. Only `flight` frames carry a payload (raw Flight bytes); every other message has
 * none. `FrameReader.push` accepts input split at any byte.
 */

/** Largest frame either side accepts (64 MiB): a bigger length means a corrupted stream. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** A decoded frame: its JSON header and its (possibly empty) payload. */
export interface Frame {
  header: Record<string, unknown> & { type: string };
  payload: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Encodes one frame. */
export function encodeFrame(header: Frame['header'], payload: Uint8Array = new Uint8Array()): Uint8Array {
  const headerBytes = encoder.encode(JSON.stringify(header));
  const total = 4 + headerBytes.length + payload.length;
  if (total > MAX_FRAME_BYTES) {
    throw new RangeError(`frame of ${total} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
  }
  const frame = new Uint8Array(4 + total);
  const view = new DataView(frame.buffer);
  view.setUint32(0, total, true);
  view.setUint32(4, headerBytes.length, true);
  frame.set(headerBytes, 8);
  frame.set(payload, 8 + headerBytes.length);
  return frame;
}

/** Incremental frame decoder: push bytes as they arrive, get whole frames back. */
export class FrameReader {
  #buffer: Uint8Array = new Uint8Array();

  /** Appends `bytes` and returns every frame completed by them; throws on a malformed frame. */
  push(bytes: Uint8Array): Frame[] {
    this.#buffer = concat(this.#buffer, bytes);
    const frames: Frame[] = [];
    for (;;) {
      if (this.#buffer.length < 4) return frames;
      const view = new DataView(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffer.length);
      const total = view.getUint32(0, true);
      if (total < 4 || total > MAX_FRAME_BYTES) {
        throw new RangeError(`frame length ${total} is outside 4..${MAX_FRAME_BYTES}`);
      }
      if (this.#buffer.length < 4 + total) return frames;
      const headerLength = view.getUint32(4, true);
      if (headerLength > total - 4) {
        throw new RangeError(`header length ${headerLength} exceeds the frame length ${total}`);
      }
      const header = JSON.parse(decoder.decode(this.#buffer.subarray(8, 8 + headerLength)));
      if (typeof header !== 'object' || header === null || typeof header.type !== 'string') {
        throw new TypeError('frame header is not an object with a string `type`');
      }
      frames.push({ header, payload: this.#buffer.slice(8 + headerLength, 4 + total) });
      this.#buffer = this.#buffer.subarray(4 + total);
    }
  }

  /** Bytes of an unfinished frame still buffered. */
  get pending(): number {
    return this.#buffer.length;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}
