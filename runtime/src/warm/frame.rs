//! Warm-protocol frames: a 4-byte little-endian length, then that many bytes of one JSON value.
//!
//! Entry: [`write_frame`], [`read_frame`]. Invariant: a length beyond [`MAX_FRAME_BYTES`] (or a
//! caller's smaller bound) is refused before anything is allocated, so a hostile peer cannot
//! make either side reserve memory it did not send.

use std::io::{self, Read, Write};

use serde_json::Value;

/// The largest frame either side sends or accepts (16 MiB: a document is bounded well below).
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// Writes `value` as one frame.
pub fn write_frame(writer: &mut impl Write, value: &Value) -> io::Result<()> {
    let body = serde_json::to_vec(value).map_err(io::Error::other)?;
    if body.len() > MAX_FRAME_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a frame of {} bytes is too long", body.len()),
        ));
    }
    let length = u32::try_from(body.len()).map_err(io::Error::other)?;
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&length.to_le_bytes());
    frame.extend_from_slice(&body);
    writer.write_all(&frame)?;
    writer.flush()
}

/// Reads one frame of at most `max_bytes`; `Ok(None)` when the stream ends between frames.
pub fn read_frame(reader: &mut impl Read, max_bytes: usize) -> io::Result<Option<Value>> {
    let mut length = [0u8; 4];
    match reader.read_exact(&mut length) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    let length = u32::from_le_bytes(length) as usize;
    if length > max_bytes.min(MAX_FRAME_BYTES) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {length} bytes is over the {max_bytes}-byte limit"),
        ));
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_round_trip_and_lengths_are_bounded() {
        let mut bytes = Vec::new();
        write_frame(&mut bytes, &json!({"a": 1})).unwrap();
        write_frame(&mut bytes, &json!([])).unwrap();
        assert_eq!(&bytes[..4], &7u32.to_le_bytes());
        let mut reader = bytes.as_slice();
        assert_eq!(read_frame(&mut reader, 100).unwrap(), Some(json!({"a": 1})));
        assert_eq!(read_frame(&mut reader, 100).unwrap(), Some(json!([])));
        assert_eq!(read_frame(&mut reader, 100).unwrap(), None);

        let huge = u32::MAX.to_le_bytes();
        assert!(read_frame(&mut huge.as_slice(), usize::MAX).is_err());
        let mut short = 10u32.to_le_bytes().to_vec();
        short.extend_from_slice(b"{}");
        assert!(read_frame(&mut short.as_slice(), 100).is_err());
        let mut not_json = 2u32.to_le_bytes().to_vec();
        not_json.extend_from_slice(b"{x");
        assert!(read_frame(&mut not_json.as_slice(), 100).is_err());
    }
}
