//! The worker protocol's frames (schemas/worker-protocol.schema.json), as bytes.
//!
//! A frame is `u32le total_len`, then `total_len` bytes: `u32le header_len`, the JSON header
//! (`header_len` bytes), and the payload (the rest; only `flight` frames have one). Entry:
//! [`FrameBuffer`] / [`encode_frame`]. Invariant: a length beyond [`MAX_FRAME_BYTES`] is refused
//! before anything is allocated.

use std::io;

/// The largest frame either side accepts (64 MiB).
pub const MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

/// One frame: its JSON header and its payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub header: serde_json::Value,
    pub payload: Vec<u8>,
}

/// Encodes `header` and `payload` as one frame.
pub fn encode_frame(header: &serde_json::Value, payload: &[u8]) -> io::Result<Vec<u8>> {
    let header = serde_json::to_vec(header).map_err(io::Error::other)?;
    let total = 4 + header.len() + payload.len();
    if total > MAX_FRAME_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a frame of {total} bytes is too long"),
        ));
    }
    let mut frame = Vec::with_capacity(4 + total);
    frame.extend_from_slice(
        &u32::try_from(total)
            .map_err(io::Error::other)?
            .to_le_bytes(),
    );
    frame.extend_from_slice(
        &u32::try_from(header.len())
            .map_err(io::Error::other)?
            .to_le_bytes(),
    );
    frame.extend_from_slice(&header);
    frame.extend_from_slice(payload);
    Ok(frame)
}

/// Frames decoded from bytes as they arrive: [`FrameBuffer::push`] what was read, then take
/// every whole frame with [`FrameBuffer::next_frame`]. A frame split across reads waits in the
/// buffer for its rest.
#[derive(Debug, Default)]
pub struct FrameBuffer {
    bytes: Vec<u8>,
    /// Where the first frame not yet taken starts.
    start: usize,
}

impl FrameBuffer {
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start == self.bytes.len() {
            self.bytes.clear();
            self.start = 0;
        }
        self.bytes.extend_from_slice(bytes);
    }

    /// Whether part of a frame is waiting for the rest (at the end of the stream: a cut frame).
    pub fn holds_partial_frame(&self) -> bool {
        self.start < self.bytes.len()
    }

    /// The next whole frame, `Ok(None)` until all of it has arrived; an error for a length out
    /// of bounds (refused before its body is waited for) or a header that is not JSON.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        let waiting = &self.bytes[self.start..];
        let Some(length) = waiting.first_chunk::<4>() else {
            return Ok(None);
        };
        let total = u32::from_le_bytes(*length) as usize;
        if !(4..=MAX_FRAME_BYTES).contains(&total) {
            return Err(invalid(format!(
                "frame length {total} is outside 4..={MAX_FRAME_BYTES}"
            )));
        }
        let Some(body) = waiting.get(4..4 + total) else {
            return Ok(None);
        };
        let header_length = u32::from_le_bytes([body[0], body[1], body[2], body[3]]) as usize;
        if header_length > total - 4 {
            return Err(invalid(format!(
                "header length {header_length} exceeds the frame length {total}"
            )));
        }
        let header = serde_json::from_slice(&body[4..4 + header_length])
            .map_err(|error| invalid(format!("frame header is not JSON: {error}")))?;
        let payload = body[4 + header_length..].to_vec();
        self.start += 4 + total;
        Ok(Some(Frame { header, payload }))
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frames_of(bytes: &[u8], split: usize) -> io::Result<Vec<Frame>> {
        let mut buffer = FrameBuffer::default();
        let mut frames = Vec::new();
        for chunk in bytes.chunks(split) {
            buffer.push(chunk);
            while let Some(frame) = buffer.next_frame()? {
                frames.push(frame);
            }
        }
        assert!(!buffer.holds_partial_frame());
        Ok(frames)
    }

    #[test]
    fn frames_round_trip_with_and_without_payload_however_the_bytes_are_split() {
        let mut bytes = encode_frame(&json!({"type": "flight", "id": 1}), b"0:[1]\n").unwrap();
        bytes.extend(encode_frame(&json!({"type": "end", "id": 1}), b"").unwrap());
        for split in [1, 3, 7, bytes.len()] {
            let frames = frames_of(&bytes, split).unwrap();
            assert_eq!(frames.len(), 2, "split {split}");
            assert_eq!(frames[0].header, json!({"type": "flight", "id": 1}));
            assert_eq!(frames[0].payload, b"0:[1]\n");
            assert_eq!(frames[1].header, json!({"type": "end", "id": 1}));
            assert_eq!(frames[1].payload, b"");
        }
    }

    #[test]
    fn hostile_lengths_are_refused_before_the_body_arrives() {
        let mut buffer = FrameBuffer::default();
        buffer.push(&u32::MAX.to_le_bytes());
        assert_eq!(
            buffer.next_frame().unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        let mut bad_header = 8u32.to_le_bytes().to_vec();
        bad_header.extend_from_slice(&100u32.to_le_bytes());
        bad_header.extend_from_slice(b"{}{}");
        let mut buffer = FrameBuffer::default();
        buffer.push(&bad_header);
        assert_eq!(
            buffer.next_frame().unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        let mut buffer = FrameBuffer::default();
        buffer.push(&[12u8, 0, 0, 0, 2, 0]);
        assert!(buffer.next_frame().unwrap().is_none());
        assert!(buffer.holds_partial_frame());
    }
}
