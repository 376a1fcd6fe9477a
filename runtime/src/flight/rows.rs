//! Flight framing: bytes in, whole rows out, with input split at any byte.
//!
//! Rows are `<hex id>:<tag?><payload>`; most end in `\n`, while `T`, `b` and the typed-array
//! tags carry a hex byte length and a comma instead and have no newline. Entry:
//! [`RowReader::push`]. Invariant: work is linear in the input; a row is only handed out whole.

use super::error::FlightError;

/// Tags whose payload is length-framed (text, byte stream chunks, typed arrays).
const LENGTH_FRAMED_TAGS: &[u8] = b"TAOobUSsLlGgMmV";

/// One complete row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: u32,
    /// The row tag, or `None` for a model (JSON) row.
    pub tag: Option<u8>,
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Id,
    Tag,
    Length,
    UntilNewline,
    ByLength(usize),
}

/// The incremental row parser.
#[derive(Debug)]
pub struct RowReader {
    state: State,
    id: u64,
    id_digits: usize,
    tag: Option<u8>,
    length: u64,
    payload: Vec<u8>,
    max_row_bytes: usize,
}

impl RowReader {
    /// A reader that refuses any row longer than `max_row_bytes`.
    pub fn new(max_row_bytes: usize) -> Self {
        Self {
            state: State::Id,
            id: 0,
            id_digits: 0,
            tag: None,
            length: 0,
            payload: Vec::new(),
            max_row_bytes,
        }
    }

    /// Consumes `bytes`, appending every row they complete to `rows`.
    pub fn push(&mut self, mut bytes: &[u8], rows: &mut Vec<Row>) -> Result<(), FlightError> {
        while let Some((&byte, rest)) = bytes.split_first() {
            match self.state {
                State::Id => {
                    bytes = rest;
                    if byte == b':' {
                        self.state = State::Tag;
                    } else {
                        let digit = hex_value(byte).ok_or_else(|| {
                            FlightError::Malformed(format!(
                                "row id contains {}",
                                describe_byte(byte)
                            ))
                        })?;
                        self.id_digits += 1;
                        self.id = (self.id << 4) | u64::from(digit);
                        if self.id_digits > 8 {
                            return Err(FlightError::Malformed(
                                "row id is longer than 8 hex digits".into(),
                            ));
                        }
                    }
                }
                State::Tag => {
                    if LENGTH_FRAMED_TAGS.contains(&byte) {
                        self.tag = Some(byte);
                        self.state = State::Length;
                        bytes = rest;
                    } else if byte.is_ascii_uppercase() || matches!(byte, b'#' | b'r' | b'x') {
                        self.tag = Some(byte);
                        self.state = State::UntilNewline;
                        bytes = rest;
                    } else {
                        // A model row: this byte already belongs to the JSON payload.
                        self.state = State::UntilNewline;
                    }
                }
                State::Length => {
                    bytes = rest;
                    if byte == b',' {
                        let length = usize::try_from(self.length).unwrap_or(usize::MAX);
                        self.check_size(length)?;
                        self.state = State::ByLength(length);
                        if length == 0 {
                            self.emit(rows);
                        }
                    } else {
                        let digit = hex_value(byte).ok_or_else(|| {
                            FlightError::Malformed(format!(
                                "row length contains {}",
                                describe_byte(byte)
                            ))
                        })?;
                        self.length = (self.length << 4) | u64::from(digit);
                        if self.length > u64::from(u32::MAX) {
                            return Err(FlightError::Malformed(
                                "row length does not fit 32 bits".into(),
                            ));
                        }
                    }
                }
                State::UntilNewline => match memchr::memchr(b'\n', bytes) {
                    Some(end) => {
                        self.payload.extend_from_slice(&bytes[..end]);
                        self.check_size(self.payload.len())?;
                        bytes = &bytes[end + 1..];
                        self.emit(rows);
                    }
                    None => {
                        self.payload.extend_from_slice(bytes);
                        self.check_size(self.payload.len())?;
                        bytes = &[];
                    }
                },
                State::ByLength(remaining) => {
                    let take = remaining.min(bytes.len());
                    self.payload.extend_from_slice(&bytes[..take]);
                    bytes = &bytes[take..];
                    if take == remaining {
                        self.emit(rows);
                    } else {
                        self.state = State::ByLength(remaining - take);
                    }
                }
            }
        }
        Ok(())
    }

    /// Fails when the stream ended inside a row.
    pub fn finish(&self) -> Result<(), FlightError> {
        if self.state == State::Id && self.id_digits == 0 {
            Ok(())
        } else {
            Err(FlightError::Incomplete(format!(
                "the Flight stream ended inside row {:x}",
                self.id
            )))
        }
    }

    fn check_size(&self, length: usize) -> Result<(), FlightError> {
        if length > self.max_row_bytes {
            return Err(FlightError::LimitExceeded(format!(
                "Flight row {:x} is longer than the {}-byte limit",
                self.id, self.max_row_bytes
            )));
        }
        Ok(())
    }

    fn emit(&mut self, rows: &mut Vec<Row>) {
        rows.push(Row {
            // Eight hex digits always fit: checked while reading the id.
            id: u32::try_from(self.id).unwrap_or(u32::MAX),
            tag: self.tag,
            payload: std::mem::take(&mut self.payload),
        });
        self.state = State::Id;
        self.id = 0;
        self.id_digits = 0;
        self.tag = None;
        self.length = 0;
    }
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

fn describe_byte(byte: u8) -> String {
    if byte.is_ascii_graphic() {
        format!("`{}`", byte as char)
    } else {
        format!("byte 0x{byte:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(input: &[u8]) -> Result<Vec<Row>, FlightError> {
        let mut reader = RowReader::new(1 << 20);
        let mut rows = Vec::new();
        reader.push(input, &mut rows)?;
        reader.finish()?;
        Ok(rows)
    }

    #[test]
    fn length_framed_rows_have_no_newline() {
        let rows = rows_of(b"4:o2,hi0:{\"a\":\"$4\"}\n2:T1,x3:C\n").unwrap();
        let summary: Vec<_> = rows
            .iter()
            .map(|r| (r.id, r.tag.map(char::from), r.payload.clone()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (4, Some('o'), b"hi".to_vec()),
                (0, None, b"{\"a\":\"$4\"}".to_vec()),
                (2, Some('T'), b"x".to_vec()),
                (3, Some('C'), Vec::new()),
            ]
        );
    }

    #[test]
    fn text_length_counts_bytes_not_characters() {
        let rows = rows_of("1:T3,✓0:\"$1\"\n".as_bytes()).unwrap();
        assert_eq!(rows[0].payload, "✓".as_bytes());
        assert_eq!(rows[1].id, 0);
    }

    #[test]
    fn bad_id_and_truncation_are_errors() {
        assert_eq!(rows_of(b"zz:1\n").unwrap_err().code(), "malformed-flight");
        assert_eq!(rows_of(b"0:[1,2").unwrap_err().code(), "stream-incomplete");
        assert_eq!(rows_of(b"1:T5,ab").unwrap_err().code(), "stream-incomplete");
        assert_eq!(
            rows_of(b"123456789:1\n").unwrap_err().code(),
            "malformed-flight"
        );
    }

    #[test]
    fn oversized_rows_are_refused() {
        let mut reader = RowReader::new(4);
        let mut rows = Vec::new();
        assert_eq!(
            reader.push(b"1:Tff,", &mut rows).unwrap_err().code(),
            "limit-exceeded"
        );
    }
}
