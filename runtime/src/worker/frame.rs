//! The worker protocol's frames (schemas/worker-protocol.schema.json), as bytes.
//!
//! A frame is `u32le total_len`, then `total_len` bytes: `u32le header_len`, the JSON header
//! (`header_len` bytes), and the payload (the rest; only `flight` frames have one). Entry:
//! [`read_frame`] / [`encode_frame`]. Invariant: a length beyond [`MAX_FRAME_BYTES`] is refused
//! before anything is allocated.

use std::io::{self, Read};

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

/// Reads one frame; `Ok(None)` at a clean end of stream (between frames).
pub fn read_frame(reader: &mut impl Read) -> io::Result<Option<Frame>> {
    let mut length = [0u8; 4];
    match reader.read_exact(&mut length) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    let total = u32::from_le_bytes(length) as usize;
    if !(4..=MAX_FRAME_BYTES).contains(&total) {
        return Err(invalid(format!(
            "frame length {total} is outside 4..={MAX_FRAME_BYTES}"
        )));
    }
    let mut body = vec![0u8; total];
    reader.read_exact(&mut body)?;
    let header_length = u32::from_le_bytes([body[0], body[1], body[2], body[3]]) as usize;
    if header_length > total - 4 {
        return Err(invalid(format!(
            "header length {header_length} exceeds the frame length {total}"
        )));
    }
    let header = serde_json::from_slice(&body[4..4 + header_length])
        .map_err(|error| invalid(format!("frame header is not JSON: {error}")))?;
    let payload = body.split_off(4 + header_length);
    Ok(Some(Frame { header, payload }))
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_round_trip_with_and_without_payload() {
        let mut bytes = encode_frame(&json!({"type": "flight", "id": 1}), b"0:[1]\n").unwrap();
        bytes.extend(encode_frame(&json!({"type": "end", "id": 1}), b"").unwrap());
        let mut reader = bytes.as_slice();
        let first = read_frame(&mut reader).unwrap().unwrap();
        assert_eq!(first.header, json!({"type": "flight", "id": 1}));
        assert_eq!(first.payload, b"0:[1]\n");
        assert_eq!(read_frame(&mut reader).unwrap().unwrap().payload, b"");
        assert_eq!(read_frame(&mut reader).unwrap(), None);
    }

    #[test]
    fn hostile_lengths_are_refused() {
        let mut huge = u32::MAX.to_le_bytes().to_vec();
        huge.extend_from_slice(&[0; 8]);
        assert_eq!(
            read_frame(&mut huge.as_slice()).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        let mut bad_header = 8u32.to_le_bytes().to_vec();
        bad_header.extend_from_slice(&100u32.to_le_bytes());
        bad_header.extend_from_slice(b"{}{}");
        assert_eq!(
            read_frame(&mut bad_header.as_slice()).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        let truncated = [12u8, 0, 0, 0, 2, 0];
        assert!(read_frame(&mut truncated.as_slice()).is_err());
    }
}
