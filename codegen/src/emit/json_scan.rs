//! A word-at-a-time scan of JSON text: where the plain bytes of a string stop (where the
//! canonical writer must escape). It reads eight bytes as one `u64` and finds the first lane
//! that stops the run.

/// One in each of the eight byte lanes of a `u64` (lane 0 is the first byte read).
const LANES: u64 = 0x0101_0101_0101_0101;
/// The high bit of each lane.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each lane of `word` that is below `limit` (at most 0x80). Only the lowest
/// flagged lane is sure to be one; a lane above it may be flagged by a borrow, which is why
/// only the lowest is read.
fn lanes_below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(LANES * u64::from(limit)) & !word & HIGH_BITS
}

fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes
        .chunks_exact(8)
        .map(|chunk| u64::from_le_bytes(chunk.try_into().expect("eight bytes")))
}

/// Where the first `"`, `\\` or control character of `bytes` is: where a string's plain text
/// stops.
pub(super) fn string_stop(bytes: &[u8]) -> Option<usize> {
    let mut count = 0;
    for word in words(bytes) {
        let stops = stop_lanes(word);
        if stops != 0 {
            return Some(count + (stops.trailing_zeros() / 8) as usize);
        }
        count += 8;
    }
    // The last bytes as one more word, filled up with a byte that never stops a run (a lane
    // above a stop is never read, and a plain lane borrows nothing), rather than a byte loop.
    let tail = &bytes[count..];
    let mut last = [PLAIN; 8];
    last[..tail.len()].copy_from_slice(tail);
    let stops = stop_lanes(u64::from_le_bytes(last));
    (stops != 0).then(|| count + (stops.trailing_zeros() / 8) as usize)
}

/// A byte that is not `"`, `\\` or a control character.
const PLAIN: u8 = b'a';

/// The high bit of the lanes of `word` that stop a string's plain text (only the lowest one is
/// sure, as [`lanes_below`] says).
fn stop_lanes(word: u64) -> u64 {
    lanes_below(word ^ (LANES * u64::from(b'"')), 1)
        | lanes_below(word ^ (LANES * u64::from(b'\\')), 1)
        | lanes_below(word, 0x20)
}

#[cfg(test)]
mod tests {
    use super::string_stop;

    /// Every text of up to 20 bytes drawn from the bytes that matter and a few that do not, at
    /// every offset of a word, against the byte-at-a-time definition.
    #[test]
    fn the_word_scans_find_what_a_byte_scan_finds() {
        let alphabet = [
            b' ', b'"', b'\\', 0x00, 0x1F, 0x20, b'a', 0x7F, 0x80, 0xC3, 0xFF, b'\n',
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 21) as usize;
            let text: Vec<u8> = (0..len)
                .map(|index| alphabet[((state >> (index * 3)) % alphabet.len() as u64) as usize])
                .collect();
            let spaced: Vec<u8> = std::iter::repeat_n(b' ', (state >> 60) as usize)
                .chain(text.iter().copied())
                .collect();
            for bytes in [&text[..], &spaced[..]] {
                let stop = bytes
                    .iter()
                    .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20);
                assert_eq!(string_stop(bytes), stop, "{bytes:?}");
            }
        }
    }
}
